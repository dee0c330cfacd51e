// A pretrained policy (the tiny random Qwen2 folder, the real Qwen tokenizer and its 151,936-id
// vocabulary) trains on the shipped Sokoban and FrozenLake configs with their row shape unchanged
// (10 turns, replies of 24 and 6 tokens, the compact template, one-turn context window), at
// micro-batch 4 on wasm: two iterations, stopped after the first and resumed from its checkpoint
// (that a resume repeats an uninterrupted run exactly is pretrained-training.test.ts's). Before the LM head ran only at scored tokens, a row's [tokens, vocab] logits
// ran wasm's 4 GB heap out at micro-batch 1 on these configs.
// Changed beyond the model keys, to keep the test short: episodes per iteration (2 groups of 2,
// one micro-batch), one PPO epoch, no warm start (the expert demonstrations are for TurnLab's own
// model) and no validation. The configs as shipped, but for the model keys, on every core:
// pretrained-shipped-configs.test.ts (minutes; TURNLAB_LONG_TESTS=1).
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { pretrainedModelKeys, tempDir, trainInMemory } from './helpers';

const tmp = tempDir('pretrained-ragen');
let modelDir: string;

beforeAll(async () => {
  modelDir = await writeRandomHfModel(join(tmp.dir, 'tiny-qwen2'), PRESETS['tiny-qwen2'], { seed: 11 });
});
afterAll(() => tmp.cleanup());

function config(file: string, tag: string) {
  return loadRunConfig(join(import.meta.dirname, '../../configs', file), [
    ...pretrainedModelKeys(modelDir),
    'ppo_mini_batch_size=4',
    'trainer.total_training_steps=2',
    'trainer.save_freq=1',
    'trainer.test_freq=0',
    'trainer.val_before_train=false',
    'trainer.workers=1',
    'warm_start.mode=none',
    'warm_start.expert_think=empty', // sokoban's plan-thinking demonstrations belong to its expert warm start
    'es_manager.train.env_groups=2',
    'es_manager.train.group_size=2',
    `es_manager.train.env_configs.tags=[${tag}]`,
    'es_manager.train.env_configs.n_groups=[2]',
    'rollout_filter_ratio=1',
    'actor_rollout_ref.actor.ppo_epochs=1',
  ]);
}

describe('a pretrained LoRA policy on the shipped RAGEN-task configs', () => {
  for (const [file, tag, reply] of [['sokoban.yaml', 'SimpleSokoban', 24], ['frozenlake.yaml', 'FrozenLake', 6]].filter(([f]) => !process.env.ONLY || f === process.env.ONLY) as Array<[string, string, number]>) {
    it(`trains ${file} with 10-turn rows at micro-batch 4, and resumes exactly`, async () => {
      const cfg = config(file, tag);
      expect([cfg.agent_proxy.max_turn, cfg.actor_rollout_ref.rollout.response_length, cfg.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu]).toEqual([10, reply, 4]);
      const first = await trainInMemory(cfg, { checkpointDir: join(tmp.dir, tag), stopAfter: 1 });
      expect(first.result.status).toBe('stopped');
      const metrics = first.sink.metrics.get(1)!;
      expect(Number.isFinite(metrics['actor/pg_loss'])).toBe(true);
      expect(metrics['actor/entropy']).toBeGreaterThan(1);
      // Full-length rows: random replies rarely stop early, so episodes play all 10 turns.
      const turns = first.sink.episodes.filter((e) => e.iteration === 1 && e.split === 'train').map((e) => e.numTurns);
      expect(Math.max(...turns)).toBe(10);

      const before = tf.memory().numTensors;
      const resumed = await trainInMemory(cfg, { checkpointDir: join(tmp.dir, tag), resumeFrom: first.sink.checkpoints[0].path });
      expect(resumed.result.status).toBe('completed');
      expect([...resumed.sink.metrics.keys()]).toEqual([2]);
      expect(Number.isFinite(resumed.sink.metrics.get(2)!['actor/pg_loss'])).toBe(true);
      expect(tf.memory().numTensors).toBe(before);
    }, 600_000);
  }
});
