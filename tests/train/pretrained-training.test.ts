// The whole training loop on a pretrained Hugging Face policy (a small random-weight Qwen2 with
// the real Qwen tokenizer, cut to 4,096 ids, and its chat template), on wasm: PPO with a value-head critic and GRPO with
// a KL loss to the adapters-off reference, LoRA checkpoints in PEFT's layout, and a resume that
// continues bit-exact.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import type { RunConfig } from '../../trainer-core/config/schema';
import { readPeftAdapter } from '../../trainer-core/model/hf/peft';
import { verifyRunCheckpoint } from '../../trainer-core/train/checkpoint-check';
import { CheckpointError } from '../../trainer-core/train/checkpoint-files';
import { evaluateCheckpoint, evaluatePretrainedModel } from '../../trainer-core/train/evaluate';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, trainInMemory, withoutTimings } from './helpers';
import { randomBatch } from '../helpers/random-batch';
import { selectBackend } from '../../trainer-core/backend';
import type { LanguageModel } from '../../trainer-core/model/language-model';
import { Rng } from '../../trainer-core/rng';
import { openPretrainedModels } from '../../trainer-core/train/pretrained-models';
import { scoreBatch, type Parallel } from '../../trainer-core/train/ppo-update';
import { WorkerPool } from '../../trainer-core/workers/worker-pool';

const FROZENLAKE = join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml');
const tmp = tempDir('pretrained');
// An iteration of a Hugging Face decoder takes seconds, not milliseconds, on wasm.
const SLOW = 300_000;
let modelDir: string;

beforeAll(async () => {
  modelDir = await writeRandomHfModel(join(tmp.dir, 'tiny-qwen2'), PRESETS['small-qwen2'], { seed: 6 });
});
afterAll(() => tmp.cleanup());

/** FrozenLake shrunk to a few short episodes. */
function pretrainedConfig(overrides: string[]): RunConfig {
  return loadRunConfig(FROZENLAKE, [
    ...TINY_LAKE_OVERRIDES,
    `actor_rollout_ref.model.path=${modelDir}`,
    'actor_rollout_ref.model.lora_rank=4',
    'actor_rollout_ref.model.lora_alpha=8',
    'actor_rollout_ref.actor.optim.lr=1e-2',
    'actor_rollout_ref.rollout.response_length=4',
    'agent_proxy.max_turn=2',
    'warm_start.mode=none',
    'trainer.val_before_train=false',
    'trainer.test_freq=0',
    'trainer.save_freq=1',
    ...overrides,
  ]);
}

describe('training a pretrained LoRA policy', () => {
  it('runs GRPO with a KL loss to the adapters-off reference and resumes bit-exact', async () => {
    const config = pretrainedConfig(['algorithm.adv_estimator=grpo', 'actor_rollout_ref.actor.use_kl_loss=true', 'trainer.total_training_steps=2']);
    const straight = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'grpo-straight') });
    expect(straight.result.status).toBe('completed');
    const first = straight.sink.metrics.get(1)!;
    expect(first).toHaveProperty('actor/kl_loss');
    expect(first['actor/kl_loss']).toBe(0); // the adapters start at zero: the policy is the reference
    expect(straight.sink.metrics.get(2)!['actor/kl_loss']).toBeGreaterThan(0);

    // The checkpoint folder is a PEFT adapter folder too, and holds no copy of the base weights.
    const ckpt = straight.sink.checkpoints[0].path;
    const adapter = await readPeftAdapter(ckpt);
    expect(adapter.lora).toMatchObject({ rank: 4, alpha: 8 });
    expect(adapter.baseModel).toBe(modelDir);
    expect(Object.keys(adapter.arrays)).toContain('model.layers.0.self_attn.q_proj.lora_A');
    expect(existsSync(join(ckpt, 'reference.safetensors'))).toBe(false);
    expect(readFileSync(join(ckpt, 'policy.safetensors')).length).toBeLessThan(1_000_000);

    const tensorsBefore = tf.memory().numTensors;
    const split = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'grpo-split'), resumeFrom: ckpt });
    expect([...split.sink.metrics.keys()]).toEqual([2]);
    expect(withoutTimings(split.sink.metrics.get(2)!)).toEqual(withoutTimings(straight.sink.metrics.get(2)!));
    expect(tf.memory().numTensors).toBe(tensorsBefore);
  }, SLOW);

  it('builds on a worker thread the models the main thread holds: the same scores, bit for bit', async () => {
    await selectBackend('wasm');
    const config = pretrainedConfig(['algorithm.adv_estimator=gae', 'actor_rollout_ref.actor.use_kl_loss=true']);
    const models = await openPretrainedModels(config, { critic: true, reference: true });
    // Adapters and value head away from their initial values, as after training or a resume.
    for (const model of [models.policy, models.critic!]) {
      for (const [, variable] of model.namedVariables()) variable.assign(tf.tidy(() => tf.randomNormal(variable.shape, 0, 0.05, 'float32', 3)));
    }
    const pool = await WorkerPool.start(1, 'wasm', models.workerSpecs);
    try {
      await pool.syncWeights('policy', models.policy);
      await pool.syncWeights('critic', models.critic!);
      // Two chunks: the first scored here, the second on the worker.
      const batch = randomBatch(new Rng(2), 4);
      const roles: Array<[Parallel['role'], LanguageModel, boolean]> = [['policy', models.policy, true], ['reference', models.reference!, true], ['critic', models.critic!, false]];
      for (const [role, model, logprobs] of roles) {
        const options = { logprobs, values: !logprobs, chunk: 2 };
        const here = await scoreBatch(model, batch, options);
        const shared = await scoreBatch(model, batch, options, { pool, role });
        const key = logprobs ? 'logprobs' : 'values';
        expect(Array.from(shared[key]!), role).toEqual(Array.from(here[key]!));
      }
      // The adapters count: the reference (adapters off) scores differently from the policy.
      const policy = await scoreBatch(models.policy, batch, { logprobs: true, chunk: 2 });
      const reference = await scoreBatch(models.reference!, batch, { logprobs: true, chunk: 2 });
      expect(Array.from(policy.logprobs!)).not.toEqual(Array.from(reference.logprobs!));
    } finally {
      await pool.dispose();
      models.dispose();
    }
  });

  it('shares rollout and update with a worker thread, and repeats itself exactly for the same seed and workers', async () => {
    // PPO with a critic and a KL loss: every role (policy, critic, the adapters-off reference) is
    // built on the worker from the model folder and scored or trained there. The first run stops
    // after one iteration and resumes for the second (the threads then start from the
    // checkpoint's adapters and value head); the second run trains both straight.
    const config = pretrainedConfig(['algorithm.adv_estimator=gae', 'actor_rollout_ref.actor.use_kl_loss=true', 'trainer.total_training_steps=2', 'trainer.workers=2']);
    const logs: string[] = [];
    const log = (line: string) => logs.push(line);
    const first = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'workers-a'), stopAfter: 1, log });
    const resumed = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'workers-a'), resumeFrom: first.sink.checkpoints[0].path, log });
    const straight = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'workers-b'), log });
    expect(logs.filter((line) => line === 'workers: 2 (the main thread and 1 worker thread)')).toHaveLength(3);
    expect(straight.result.status).toBe('completed');
    const last = straight.sink.metrics.get(2)!;
    expect(last['perf/workers']).toBe(2);
    expect(last['actor/kl_loss']).toBeGreaterThan(0);
    expect(Number.isFinite(last['critic/vf_loss'])).toBe(true);
    expect(withoutTimings(first.sink.metrics.get(1)!)).toEqual(withoutTimings(straight.sink.metrics.get(1)!));
    expect(withoutTimings(resumed.sink.metrics.get(2)!)).toEqual(withoutTimings(last));
    expect([...first.sink.episodes, ...resumed.sink.episodes]).toEqual(straight.sink.episodes);
  }, SLOW);

  it('runs PPO with a critic that starts from the same base with a value head', async () => {
    const config = pretrainedConfig(['algorithm.adv_estimator=gae', 'trainer.total_training_steps=1']);
    const run = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'ppo') });
    expect(run.result.status).toBe('completed');
    const metrics = run.sink.metrics.get(1)!;
    expect(Number.isFinite(metrics['critic/vf_loss'])).toBe(true);
    expect(Number.isFinite(metrics['actor/pg_loss'])).toBe(true);
    const ckpt = run.sink.checkpoints[0].path;
    expect(existsSync(join(ckpt, 'critic.safetensors'))).toBe(true);
    expect(verifyRunCheckpoint(ckpt, config).iteration).toBe(1);
    // Another LoRA rank cannot continue this checkpoint: refused, naming the tensor.
    const otherRank = pretrainedConfig(['algorithm.adv_estimator=gae', 'actor_rollout_ref.model.lora_rank=2']);
    expect(() => verifyRunCheckpoint(ckpt, otherRank)).toThrow(CheckpointError);
    expect(() => verifyRunCheckpoint(ckpt, otherRank)).toThrow(/lora_A` has shape \[64,4\]/);
    // The same rank on another model's layers: the model is named, not the rank it already has.
    const llamaDir = await writeRandomHfModel(join(tmp.dir, 'small-llama'), PRESETS['small-llama'], { seed: 6 });
    const otherModel = pretrainedConfig(['algorithm.adv_estimator=gae', `actor_rollout_ref.model.path=${llamaDir}`]);
    expect(() => verifyRunCheckpoint(ckpt, otherModel)).toThrow(/: the checkpoint was trained on a model whose layers have other widths; resume or fork it on the model it was trained on/);
    // Fewer target modules would drop the others' trained adapters: refused, naming them.
    const fewer = pretrainedConfig(['algorithm.adv_estimator=gae', 'actor_rollout_ref.model.target_modules=[q_proj]']);
    expect(() => verifyRunCheckpoint(ckpt, fewer)).toThrow(/policy\.safetensors holds \d+ trained tensor\(s\) the settings have no place for .*adapters on .*k_proj.*target_modules no longer names/);

    const evaluated = await evaluateCheckpoint(ckpt, { episodes: 2 });
    expect(evaluated.iteration).toBe(1);
    expect(evaluated.episodes).toBe(2);
    expect(evaluated.metrics).toHaveProperty('val/FrozenLakeNonSlip/success');
  }, SLOW);

  it('evaluates the untrained model folder on a config', async () => {
    const result = await evaluatePretrainedModel(modelDir, pretrainedConfig([]), { episodes: 2 });
    expect(result.iteration).toBe(0);
    expect(result.episodes).toBe(2);
    expect(result.metrics).toHaveProperty('val/FrozenLakeNonSlip/success');
  });
});
