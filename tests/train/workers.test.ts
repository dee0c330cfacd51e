import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { loadRunConfig } from '../../trainer-core/config';
import { Adam } from '../../trainer-core/model/adam';
import { Transformer } from '../../trainer-core/model/transformer';
import { Rng } from '../../trainer-core/rng';
import type { TrainingBatch } from '../../trainer-core/train/batch';
import { scoreBatch, updateActor, updateCritic, type Parallel } from '../../trainer-core/train/ppo-update';
import { resolveWorkerCount } from '../../trainer-core/workers/worker-count';
import { contiguousBlocks, transformerSpec, WorkerPool } from '../../trainer-core/workers/worker-pool';
import { randomBatch, testActorSettings } from '../helpers/random-batch';
import type { Demonstration } from '../../trainer-core/train/demonstrations';
import { warmStart } from '../../trainer-core/train/warm-start';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, trainInMemory, withoutTimings } from './helpers';

const tmp = tempDir('workers');
beforeAll(async () => {
  await selectBackend('wasm');
});
afterAll(() => tmp.cleanup());

const MODEL = { vocabSize: 30, contextLength: 32, dModel: 16, nLayers: 2, nHeads: 2, positionEncoding: 'rope' as const };
async function weightsOf(model: Transformer): Promise<Float32Array[]> {
  return Promise.all(model.variables().map(async (v) => (await v.data()) as Float32Array));
}

/** Actor and critic updates of fresh models on `batch`, with the given worker threads (or none). */
async function updated(batch: TrainingBatch, threads: number): Promise<{ actor: Float32Array[]; critic: Float32Array[]; metrics: Record<string, number> }> {
  const rng = new Rng(7);
  const advantages = batch.mask.map((m) => m * (rng.next() - 0.5));
  const refLogprobs = batch.oldLogprobs.map((x) => x * 0.9);
  const returns = batch.mask.map((m) => m * rng.next());
  const policy = Transformer.create(MODEL, 5);
  const critic = Transformer.create({ ...MODEL, lmHead: false, valueHead: true }, 6);
  const pool = threads > 0 ? await WorkerPool.start(threads, 'wasm', { policy: await transformerSpec(policy), critic: await transformerSpec(critic) }) : null;
  const on = (role: Parallel['role']): Parallel | undefined => (pool ? { pool, role } : undefined);
  try {
    const actorAdam = new Adam(policy.namedVariables(), { learningRate: 1e-2 });
    const criticAdam = new Adam(critic.namedVariables(), { learningRate: 1e-2 });
    const settings = { ...testActorSettings(), klLoss: { coef: 0.1, type: 'low_var_kl' as const, refLogprobs } };
    const metrics = await updateActor(policy, actorAdam, batch, advantages, settings, new Rng(3), on('policy'));
    const values = (await scoreBatch(critic, batch, { logprobs: false, values: true, chunk: 2 }, on('critic'))).values as Float32Array;
    Object.assign(
      metrics,
      await updateCritic(critic, criticAdam, batch, returns, values, { miniBatchSize: 6, microBatchSize: 2, epochs: 1, cliprange: 0.5, aggMode: 'token-mean', normLength: 64, gradClip: 1 }, new Rng(4), on('critic')),
    );
    // After the steps the workers hold what the main thread holds: their scores agree.
    const here = await scoreBatch(policy, batch, { logprobs: true, chunk: 2 });
    const there = await scoreBatch(policy, batch, { logprobs: true, chunk: 2 }, on('policy'));
    expect(Array.from(there.logprobs as Float32Array)).toEqual(Array.from(here.logprobs as Float32Array));
    actorAdam.dispose();
    criticAdam.dispose();
    return { actor: await weightsOf(policy), critic: await weightsOf(critic), metrics };
  } finally {
    policy.dispose();
    critic.dispose();
    await pool?.dispose();
  }
}

describe('worker threads (trainer.workers)', () => {
  it('split jobs into contiguous blocks, the first for the main thread', () => {
    expect(contiguousBlocks(7, 3)).toEqual([
      [0, 3],
      [3, 5],
      [5, 7],
    ]);
    expect(contiguousBlocks(1, 3)).toEqual([
      [0, 1],
      [1, 1],
      [1, 1],
    ]);
  });

  it('give actor and critic updates identical, bit for bit, to one thread', async () => {
    const batch = randomBatch(new Rng(11), 12);
    const before = tf.memory().numTensors;
    const alone = await updated(batch, 0);
    const shared = await updated(batch, 2);
    expect(tf.memory().numTensors).toBe(before);
    shared.actor.forEach((w, i) => expect(Array.from(w)).toEqual(Array.from(alone.actor[i])));
    shared.critic.forEach((w, i) => expect(Array.from(w)).toEqual(Array.from(alone.critic[i])));
    expect(shared.metrics).toEqual(alone.metrics);
    expect(alone.metrics['actor/kl_loss']).toBeGreaterThan(0);
  }, 60_000);

  it("share a warm start, which follows one thread's up to float rounding", async () => {
    const batch = randomBatch(new Rng(5), 10);
    const demonstrations: Demonstration[] = batch.tokens.map((ids, b) => ({
      tag: 'test',
      text: '',
      sequence: {
        inputIds: ids,
        lossMask: Array.from(batch.mask.subarray(b * batch.cols, b * batch.cols + ids.length)),
        logprobs: ids.map(() => 0),
        turnEnds: [ids.length - 1],
        turnNumbers: [1],
        tokenRewards: ids.map(() => 0),
        documentIds: ids.map(() => 0),
      },
    }));
    const run = async (threads: number) => {
      const policy = Transformer.create(MODEL, 8);
      const pool = threads > 0 ? await WorkerPool.start(threads, 'wasm', { policy: await transformerSpec(policy) }) : null;
      const { finalLoss } = await warmStart({ policy, demonstrations, steps: 6, lr: 1e-2, batchSize: 5, gradClip: 1, rng: new Rng(9), parallel: pool ? { pool, role: 'policy' } : undefined });
      await pool?.dispose();
      const weights = await weightsOf(policy);
      policy.dispose();
      return { finalLoss, weights };
    };
    const alone = await run(0);
    const shared = await run(1);
    expect(shared.finalLoss).toBeCloseTo(alone.finalLoss, 5);
    shared.weights.forEach((w, i) => w.forEach((x, j) => expect(Math.abs(x - alone.weights[i][j])).toBeLessThan(1e-4)));
  }, 60_000);

  it('make a run that repeats itself exactly, resumed or not', async () => {
    const config = loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [
      ...TINY_LAKE_OVERRIDES,
      'trainer.total_training_steps=3',
      'trainer.save_freq=0',
      'trainer.workers=2',
      'algorithm.adv_estimator=gae',
      'actor_rollout_ref.actor.use_kl_loss=true',
    ]);
    // The second run repeats the first for iterations 0-2, then stops and resumes for 3: any
    // difference between two runs of the same seed, at any iteration, shows as a mismatch here.
    const first = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'a') });
    const stopped = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'c'), stopAfter: 2 });
    const resumed = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'c'), resumeFrom: stopped.sink.checkpoints[0].path });
    for (const iteration of [0, 1, 2, 3]) {
      const expected = withoutTimings(first.sink.metrics.get(iteration)!);
      expect(withoutTimings((iteration <= 2 ? stopped : resumed).sink.metrics.get(iteration)!)).toEqual(expected);
    }
    expect(first.sink.metrics.get(3)).toHaveProperty('critic/vf_loss');
    expect(first.sink.metrics.get(3)).toHaveProperty('actor/kl_loss');
    expect(first.sink.metrics.get(3)!['perf/workers']).toBe(2);
    // Episodes of several turns were played on both shards.
    const episodes = first.sink.episodes.filter((e) => e.iteration === 1 && e.split === 'train');
    expect(episodes.some((e) => e.turns.length > 1)).toBe(true);

  }, 240_000);

  it('are refused beside a GPU backend, and auto takes the cores on CPU for any model', () => {
    const lake = join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml');
    // A pretrained model's rollout and update run on worker threads too.
    expect(loadRunConfig(lake, ['trainer.workers=2', 'actor_rollout_ref.model.path=/models/qwen']).trainer.workers).toBe(2);
    expect(() => loadRunConfig(lake, ['trainer.workers=2', 'trainer.backend=webgpu'])).toThrow(/trainer.workers.*use 1 or auto/);
    expect(() => loadRunConfig(lake, ['trainer.workers=0'])).toThrow(/workers/);
    expect(resolveWorkerCount('auto', { backend: 'wasm', cores: 16 })).toEqual({ count: 8, note: null });
    expect(resolveWorkerCount('auto', { backend: 'wasm', cores: 2 })).toEqual({ count: 2, note: null });
    expect(resolveWorkerCount('auto', { backend: 'webgpu', cores: 16 }).count).toBe(1);
    // More than the cores is kept (the same count, the same run) and said to cost without paying.
    const over = resolveWorkerCount(3, { backend: 'wasm', cores: 2 });
    expect(over.count).toBe(3);
    expect(over.note).toMatch(/^workers: 3 on 2 cores: each thread holds its own copy of the models .*trainer\.workers=auto uses the cores\)$/);
    expect(resolveWorkerCount(2, { backend: 'wasm', cores: 2 })).toEqual({ count: 2, note: null });
  });
});
