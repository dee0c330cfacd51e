// The tiny Qwen2 folder (random weights, the real Qwen tokenizer and its 151,936-id vocabulary)
// trains on configs/sokoban.yaml and configs/frozenlake.yaml as shipped, but for the model keys:
// actor_rollout_ref.model.path, LoRA rank 4 / alpha 8 and micro-batch 4 (gradient checkpointing
// is on by default for a pretrained model). So 256 episodes of 10 turns an iteration, full-length
// rows (random replies never stop early), the configs' PPO epochs and mini-batches, validation
// before the first update, and `trainer.workers: auto` (both cores: a worker thread shares the
// rollout, the scoring and the micro-batches). Two iterations straight, then the second again,
// resumed from the first one's checkpoint: it must come out exactly as it did straight (same
// metrics, same episodes); the config's total_training_steps stays as written.
//
// Changed beyond the model keys, and why:
// - `trainer.backend=wasm`: the backend the issue names (auto would pick a GPU where there is one).
// - `warm_start.steps=0`, as the README's pretrained example sets it: the shipped warm start
//   imitates the environment's solver for 2400-2500 steps, the recipe for TurnLab's own model
//   trained from scratch (the configs' comments say so); it would take hours with Qwen's
//   vocabulary on two cores, and a pretrained model is what replaces it.
// - `trainer.save_freq=1`: a checkpoint after the first iteration to resume from.
//
// It takes many minutes, not seconds (see docs/pretrained-models.md for the figures), so it
// runs only with TURNLAB_LONG_TESTS=1 (`-t frozenlake` runs the shorter config alone);
// pretrained-ragen-configs.test.ts trains the same row shapes on fewer episodes in every run of
// the suite.
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { pretrainedModelKeys, tempDir, trainInMemory, withoutTimings } from './helpers';

const LONG = process.env.TURNLAB_LONG_TESTS === '1';
const tmp = tempDir('pretrained-shipped');
let modelDir: string;

beforeAll(async () => {
  if (LONG) modelDir = await writeRandomHfModel(join(tmp.dir, 'tiny-qwen2'), PRESETS['tiny-qwen2'], { seed: 11 });
});
afterAll(() => tmp.cleanup());

function config(file: string) {
  return loadRunConfig(join(import.meta.dirname, '../../configs', file), [
    ...pretrainedModelKeys(modelDir),
    'warm_start.steps=0',
    'trainer.save_freq=1',
  ]);
}

describe('a pretrained LoRA policy on the shipped RAGEN-task configs, unchanged but for the model keys', () => {
  for (const [file, reply] of [['sokoban.yaml', 24], ['frozenlake.yaml', 6]] as const) {
    it(`trains ${file} for two iterations on every core, and resumes the second exactly`, async (ctx) => {
      if (!LONG) ctx.skip('a long test (minutes): run it with TURNLAB_LONG_TESTS=1');
      const cfg = config(file);
      expect([cfg.agent_proxy.max_turn, cfg.actor_rollout_ref.rollout.response_length, cfg.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu, cfg.trainer.workers]).toEqual([10, reply, 4, 'auto']);
      const started = performance.now();
      const cpu = process.cpuUsage();
      const straight = await trainInMemory(cfg, { checkpointDir: join(tmp.dir, file), stopAfter: 2 });
      expect(straight.result.status).toBe('stopped');
      // Validation before the first update, on the config's 256 rooms, then iterations 1 and 2, each stored.
      expect([...straight.sink.metrics.keys()]).toEqual([0, 1, 2]);
      expect(straight.sink.episodes.filter((e) => e.iteration === 0 && e.split === 'val')).toHaveLength(256);
      expect(straight.sink.checkpoints.map((c) => c.iteration)).toEqual([1, 2]);
      for (const iteration of [1, 2]) {
        const metrics = straight.sink.metrics.get(iteration)!;
        expect(metrics['perf/workers']).toBe(Math.min(availableParallelism(), 8));
        expect(Number.isFinite(metrics['actor/pg_loss'])).toBe(true);
        expect(metrics['actor/entropy']).toBeGreaterThan(1);
        const train = straight.sink.episodes.filter((e) => e.iteration === iteration && e.split === 'train');
        expect(train).toHaveLength(256);
        expect(Math.max(...train.map((e) => e.numTurns))).toBe(10);
      }
      const straightSeconds = (performance.now() - started) / 1000;

      const before = tf.memory().numTensors;
      const resumed = await trainInMemory(cfg, { checkpointDir: join(tmp.dir, `${file}-resumed`), resumeFrom: straight.sink.checkpoints[0].path, stopAfter: 2 });
      expect(resumed.result.status).toBe('stopped');
      expect([...resumed.sink.metrics.keys()]).toEqual([2]);
      expect(withoutTimings(resumed.sink.metrics.get(2)!)).toEqual(withoutTimings(straight.sink.metrics.get(2)!));
      const rewards = (sink: typeof straight.sink) => sink.episodes.filter((e) => e.iteration === 2).map((e) => [e.numTurns, e.totalReward]);
      expect(rewards(resumed.sink)).toEqual(rewards(straight.sink));
      expect(tf.memory().numTensors).toBe(before);
      // CPU seconds of every thread of the process: on a busy machine, the figure wall time is not.
      const spent = process.cpuUsage(cpu);
      const wall = (performance.now() - started) / 1000;
      console.log(`${file}: validation and two iterations in ${straightSeconds.toFixed(0)} s wall, then the second resumed: ${wall.toFixed(0)} s wall in all, ${((spent.user + spent.system) / 1e6).toFixed(0)} CPU s`);
    }, 3 * 3600_000);
  }
});
