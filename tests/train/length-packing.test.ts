import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOSS_AGG_MODES } from '../../trainer-core/algo/losses';
import { selectBackend } from '../../trainer-core/backend';
import { Adam } from '../../trainer-core/model/adam';
import { Transformer } from '../../trainer-core/model/transformer';
import { Rng } from '../../trainer-core/rng';
import type { TrainingBatch } from '../../trainer-core/train/batch';
import { randomBatch, testActorSettings } from '../helpers/random-batch';
import { packByLength, scoreBatch, updateActor, type ActorUpdateSettings } from '../../trainer-core/train/ppo-update';

beforeAll(async () => {
  await selectBackend('wasm');
});

describe('packByLength', () => {
  it('puts every row in exactly one micro-batch, longest first, within the token budget', () => {
    const lengths = [10, 3, 3, 3, 9, 2, 7];
    const packed = packByLength([0, 1, 2, 3, 4, 5, 6], (r) => lengths[r], 2);
    expect(packed.flat().sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    for (const micro of packed) expect(micro.length * Math.max(...micro.map((r) => lengths[r]))).toBeLessThanOrEqual(2 * 10);
    expect(packed).toEqual([[0, 4], [6, 1], [2, 3, 5]]);
  });
});

async function trainedWeights(batch: TrainingBatch, advantages: Float32Array, settings: ActorUpdateSettings): Promise<Float32Array[]> {
  const model = Transformer.create({ vocabSize: 30, contextLength: 32, dModel: 16, nLayers: 2, nHeads: 2, positionEncoding: 'rope' }, 5);
  const optimizer = new Adam(model.namedVariables(), { learningRate: 1e-2 });
  await updateActor(model, optimizer, batch, advantages, settings, new Rng(3));
  const weights = await Promise.all(model.variables().map(async (v) => (await v.data()) as Float32Array));
  optimizer.dispose();
  model.dispose();
  return weights;
}

describe('updates with rows packed by length', () => {
  it.each(LOSS_AGG_MODES)('take the same optimizer steps as the plain micro-batches (%s)', async (aggMode) => {
    const rng = new Rng(11);
    const batch = randomBatch(rng, 12);
    const advantages = batch.mask.map((m) => m * (rng.next() - 0.5));
    const settings = testActorSettings(aggMode);
    const before = tf.memory().numTensors;
    const packed = await trainedWeights(batch, advantages, settings);
    const plain = await trainedWeights(batch, advantages, { ...settings, packByLength: false });
    expect(tf.memory().numTensors).toBe(before);
    let moved = 0;
    packed.forEach((w, i) =>
      w.forEach((x, j) => {
        expect(Math.abs(x - plain[i][j])).toBeLessThan(2e-5);
        moved = Math.max(moved, Math.abs(x));
      }),
    );
    expect(moved).toBeGreaterThan(0);
  });

  it('scores every row as alone whatever rows share its pass', async () => {
    const model = Transformer.create({ vocabSize: 30, contextLength: 32, dModel: 16, nLayers: 2, nHeads: 2, valueHead: true }, 2);
    const batch = randomBatch(new Rng(4), 7);
    const together = await scoreBatch(model, batch, { logprobs: true, values: true, chunk: 3 });
    const alone = await scoreBatch(model, batch, { logprobs: true, values: true, chunk: 1 });
    together.logprobs!.forEach((x, i) => expect(Math.abs(x - alone.logprobs![i])).toBeLessThan(1e-5));
    together.values!.forEach((x, i) => expect(Math.abs(x - alone.values![i])).toBeLessThan(1e-5));
    expect(together.logprobs!.some((x) => x !== 0)).toBe(true);
    model.dispose();
  });
});
