import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { ConfigError } from '../../trainer-core/config/errors';
import { loadRunConfig } from '../../trainer-core/config/load';
import { Adam } from '../../trainer-core/model/adam';
import { Transformer, type TransformerConfig } from '../../trainer-core/model/transformer';
import { Rng } from '../../trainer-core/rng';
import { transformerConfig } from '../../trainer-core/train/models';
import { scoreBatch, updateActor, type ActorUpdateSettings } from '../../trainer-core/train/ppo-update';
import type { TrainingBatch } from '../../trainer-core/train/batch';
import { randomBatch, testActorSettings } from '../helpers/random-batch';
import { tempDir, tinyBanditConfig, trainInMemory } from './helpers';

const tmp = tempDir('aux-value');
afterAll(() => tmp.cleanup());

beforeAll(async () => {
  await selectBackend('wasm');
});

const SHAPE: TransformerConfig = { vocabSize: 30, contextLength: 32, dModel: 16, nLayers: 2, nHeads: 2, positionEncoding: 'rope' };

async function weightsAfter(model: Transformer, batch: TrainingBatch, advantages: Float32Array, settings: ActorUpdateSettings, updates = 1) {
  const optimizer = new Adam(model.namedVariables(), { learningRate: 1e-2 });
  let metrics: Record<string, number> = {};
  for (let i = 0; i < updates; i++) metrics = await updateActor(model, optimizer, batch, advantages, settings, new Rng(3 + i));
  const weights = new Map(await Promise.all(model.namedVariables().map(async ([name, v]) => [name, (await v.data()) as Float32Array] as const)));
  optimizer.dispose();
  return { weights, metrics };
}

/** randomBatch's rows with at least one generated token each, as every trained episode has. */
function batchOf(rng: Rng, rows: number): TrainingBatch {
  const batch = randomBatch(rng, rows);
  batch.tokens.forEach((row, b) => {
    const last = b * batch.cols + row.length - 1;
    batch.mask[last] = 1;
    batch.oldLogprobs[last] = -3.4;
  });
  return batch;
}

describe('the policy value loss (actor_rollout_ref.actor.aux_value_coef)', () => {
  it('is off by default and then changes nothing: the trunk trains as a policy without a value head does', async () => {
    const rng = new Rng(11);
    const batch = batchOf(rng, 12);
    const advantages = batch.mask.map((m) => m * (rng.next() - 0.5));
    const withHead = Transformer.create({ ...SHAPE, valueHead: true }, 5);
    const without = Transformer.create(SHAPE, 5);
    const a = await weightsAfter(withHead, batch, advantages, testActorSettings());
    const b = await weightsAfter(without, batch, advantages, testActorSettings());
    for (const [name, w] of b.weights) expect([...a.weights.get(name)!]).toEqual([...w]);
    expect(a.metrics['actor/aux_vf_loss']).toBeUndefined();
    withHead.dispose();
    without.dispose();
  });

  it('fits the value head to the returns and sends the same loss into the shared trunk', async () => {
    const rng = new Rng(12);
    const batch = batchOf(rng, 12);
    const advantages = batch.mask.map((m) => m * (rng.next() - 0.5));
    // Every episode's outcome on each of its generated tokens, 1 for even rows and 0 for odd ones.
    const returns = batch.mask.map((m, i) => m * (Math.floor(i / batch.cols) % 2 === 0 ? 1 : 0));
    const model = Transformer.create({ ...SHAPE, valueHead: true }, 5);
    const plain = Transformer.create({ ...SHAPE, valueHead: true }, 5);
    const settings = { ...testActorSettings(), auxValue: { coef: 1, returns } };
    const first = await weightsAfter(model, batch, advantages, settings);
    const trunkOnly = await weightsAfter(plain, batch, advantages, testActorSettings());
    expect(first.metrics['actor/aux_vf_loss']).toBeGreaterThan(0);
    // The value loss reaches the trunk: its weights differ from the policy loss's alone.
    expect([...first.weights.get('layers.0.attn.qkv.weight')!]).not.toEqual([...trunkOnly.weights.get('layers.0.attn.qkv.weight')!]);
    const later = await weightsAfter(model, batch, advantages, settings, 12);
    expect(later.metrics['actor/aux_vf_loss']).toBeLessThan(first.metrics['actor/aux_vf_loss'] / 2);
    const { values } = await scoreBatch(model, batch, { logprobs: false, values: true, chunk: 4 });
    let even = 0;
    let odd = 0;
    batch.mask.forEach((m, i) => {
      if (m === 0) return;
      if (Math.floor(i / batch.cols) % 2 === 0) even += values![i];
      else odd += values![i];
    });
    expect(even / batch.mask.filter((m, i) => m > 0 && Math.floor(i / batch.cols) % 2 === 0).length).toBeGreaterThan(0.5);
    expect(odd / batch.mask.filter((m, i) => m > 0 && Math.floor(i / batch.cols) % 2 === 1).length).toBeLessThan(0.5);
    model.dispose();
    plain.dispose();
  });

  it('gives the policy a value head only when on, and is refused for a Hugging Face model', () => {
    const frozenlake = 'configs/frozenlake-rl.yaml';
    expect(transformerConfig(loadRunConfig(frozenlake), 64, 'policy').valueHead).toBe(false);
    const on = loadRunConfig(frozenlake, ['actor_rollout_ref.actor.aux_value_coef=0.5']);
    expect(transformerConfig(on, 64, 'policy')).toMatchObject({ lmHead: true, valueHead: true });
    const hf = ['actor_rollout_ref.actor.aux_value_coef=0.5', 'actor_rollout_ref.model.path=/models/qwen'];
    expect(() => loadRunConfig(frozenlake, hf)).toThrow(ConfigError);
    expect(() => loadRunConfig(frozenlake, hf)).toThrow(/aux_value_coef.*Hugging Face/);
  });

  it('trains a run that reports it, resumes it, and names the key when a checkpoint without the head is started from', async () => {
    const on = ['trainer.total_training_steps=2', 'trainer.test_freq=0', 'actor_rollout_ref.actor.aux_value_coef=0.5'];
    const run = await trainInMemory(tinyBanditConfig(on), { checkpointDir: join(tmp.dir, 'on') });
    expect(run.result.status).toBe('completed');
    expect(run.sink.metrics.get(2)!['actor/aux_vf_loss']).toBeGreaterThan(0);
    const resumed = await trainInMemory(tinyBanditConfig([...on, 'trainer.total_training_steps=3']), {
      checkpointDir: join(tmp.dir, 'on-resumed'),
      resumeFrom: run.sink.checkpoints.at(-1)!.path,
    });
    expect(resumed.result.status).toBe('completed');
    const off = await trainInMemory(tinyBanditConfig(['trainer.total_training_steps=1', 'trainer.test_freq=0']), { checkpointDir: join(tmp.dir, 'off') });
    const fromOff = tinyBanditConfig([...on, 'warm_start.steps=0', `model.path=${off.sink.checkpoints[0].path}`]);
    await expect(trainInMemory(fromOff, { checkpointDir: join(tmp.dir, 'from-off') })).rejects.toThrow(/the value head: checkpoint false, config true.*aux_value_coef > 0: set it to 0/);
  });
});
