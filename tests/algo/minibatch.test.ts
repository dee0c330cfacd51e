import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../trainer-core/backend';
import { beforeAll, describe, expect, it } from 'vitest';
import { aggLoss, LOSS_AGG_MODES } from '../../trainer-core/algo/losses';
import { chunk, gatherRows, maskCounts, planPpoMiniBatches } from '../../trainer-core/algo/minibatch';
import { Rng } from '../../trainer-core/rng';
import { f32 } from './helpers';

beforeAll(async () => {
  // Through TurnLab's own selection: it keeps tfjs's "install tfjs-node" banner out of the output.
  await selectBackend('cpu');
});

describe('PPO mini-batch schedule', () => {
  it('splits each epoch into mini-batches and micro-batches, keeping the remainders', () => {
    const plan = planPpoMiniBatches({ batchSize: 10, miniBatchSize: 4, microBatchSize: 2, epochs: 2, rng: new Rng(1) });
    expect(plan.map((m) => [m.epoch, m.index])).toEqual([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
    expect(plan.map((m) => m.rows.length)).toEqual([4, 4, 2, 4, 4, 2]);
    expect(plan[0].microBatches.map((mb) => mb.length)).toEqual([2, 2]);
    expect(plan[2].microBatches.map((mb) => mb.length)).toEqual([2]);
    for (const m of plan) expect(m.microBatches.flat()).toEqual(m.rows);
    for (const epoch of [0, 1]) {
      const rows = plan.filter((m) => m.epoch === epoch).flatMap((m) => m.rows);
      expect([...rows].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }
  });

  it('shuffles reproducibly from the seed and differently per epoch', () => {
    const order = (seed: number) => planPpoMiniBatches({ batchSize: 16, miniBatchSize: 16, epochs: 2, rng: new Rng(seed) }).map((m) => m.rows);
    expect(order(5)).toEqual(order(5));
    expect(order(5)[0]).not.toEqual(order(5)[1]);
    expect(order(5)[0]).not.toEqual(order(6)[0]);
  });

  it('keeps the batch order when shuffle is off and defaults micro = mini', () => {
    const plan = planPpoMiniBatches({ batchSize: 5, miniBatchSize: 2, rng: new Rng(0), shuffle: false });
    expect(plan.map((m) => m.rows)).toEqual([[0, 1], [2, 3], [4]]);
    expect(plan[0].microBatches).toEqual([[0, 1]]);
  });

  it('rejects impossible sizes with the config names', () => {
    const rng = new Rng(0);
    expect(() => planPpoMiniBatches({ batchSize: 8, miniBatchSize: 4, microBatchSize: 8, rng })).toThrow(/larger than ppo_mini_batch_size/);
    expect(() => planPpoMiniBatches({ batchSize: 8, miniBatchSize: 0, rng })).toThrow(/ppo_mini_batch_size must be a positive integer/);
    expect(() => planPpoMiniBatches({ batchSize: 8, miniBatchSize: 4, epochs: 1.5, rng })).toThrow(/ppo_epochs/);
    expect(() => chunk([1], 0)).toThrow(/chunk size/);
  });
});

describe('row helpers', () => {
  const mask = f32([1, 1, 0, /**/ 0, 0, 0, /**/ 1, 0, 0, /**/ 1, 1, 1]);

  it('gathers rows of a row-major array', () => {
    const data = f32([0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32]);
    expect(Array.from(gatherRows(data, 3, [3, 0]))).toEqual([30, 31, 32, 0, 1, 2]);
    expect(() => gatherRows(data, 3, [4])).toThrow(/row 4 is outside the batch of 4 rows/);
  });

  it('counts generated tokens and non-empty sequences', () => {
    expect(maskCounts(mask, 3, [0, 1, 2, 3])).toEqual({ tokens: 6, seqs: 3 });
    expect(maskCounts(mask, 3, [1])).toEqual({ tokens: 0, seqs: 0 });
  });

  it('micro-batch losses with mini-batch counts sum to the mini-batch loss, in every agg mode', () => {
    const loss = f32([0.5, -1, 7, /**/ 3, 3, 3, /**/ 2, 9, 9, /**/ -0.5, 1.5, 4]);
    const all = [0, 1, 2, 3];
    const counts = maskCounts(mask, 3, all);
    const lossOf = (rows: number[], opts = {}, mode: (typeof LOSS_AGG_MODES)[number] = 'token-mean') => {
      const l = tf.tensor2d(gatherRows(loss, 3, rows), [rows.length, 3]);
      const m = tf.tensor2d(gatherRows(mask, 3, rows), [rows.length, 3]);
      const s = aggLoss(l, m, mode, opts);
      const v = s.dataSync()[0];
      tf.dispose([l, m, s]);
      return v;
    };
    for (const mode of LOSS_AGG_MODES) {
      const opts = { globalTokens: counts.tokens, globalSeqs: counts.seqs };
      const whole = lossOf(all, {}, mode);
      const summed = chunk(all, 2).reduce((acc, rows) => acc + lossOf(rows, opts, mode), 0);
      expect(summed).toBeCloseTo(whole, 5);
    }
  });
});
