import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { Adam } from '../../trainer-core/model/adam';
import { Transformer } from '../../trainer-core/model/transformer';
import { Rng } from '../../trainer-core/rng';
import type { Demonstration } from '../../trainer-core/train/demonstrations';
import { warmStart } from '../../trainer-core/train/warm-start';

beforeAll(async () => {
  await selectBackend('wasm');
});
afterEach(() => vi.restoreAllMocks());

function demonstration(ids: number[], replyFrom: number): Demonstration {
  const zeros = ids.map(() => 0);
  return {
    tag: 'Toy',
    text: '',
    sequence: {
      inputIds: ids,
      lossMask: ids.map((_, i) => (i >= replyFrom ? 1 : 0)),
      logprobs: zeros,
      turnEnds: [ids.length - 1],
      turnNumbers: [1],
      tokenRewards: zeros,
      documentIds: zeros,
    },
  };
}

/** The learning rate of each optimizer step a warm start takes. */
async function ratesOf(schedule?: { type: 'constant' | 'cosine'; minLrRatio: number }): Promise<number[]> {
  const rates: number[] = [];
  const apply = Adam.prototype.apply;
  vi.spyOn(Adam.prototype, 'apply').mockImplementation(function (this: Adam, ...args: Parameters<Adam['apply']>) {
    rates.push(this.learningRate);
    return apply.apply(this, args);
  });
  const policy = Transformer.create({ vocabSize: 20, contextLength: 16, dModel: 16, nLayers: 1, nHeads: 2, positionEncoding: 'rope' }, 1);
  try {
    await warmStart({
      policy,
      demonstrations: [demonstration([1, 2, 3, 4, 5], 3), demonstration([1, 6, 7, 8], 2)],
      steps: 5,
      lr: 1e-2,
      schedule,
      batchSize: 2,
      gradClip: 1,
      rng: new Rng(4),
    });
  } finally {
    policy.dispose();
  }
  return rates;
}

describe('the warm start learning rate', () => {
  it('stays at warm_start.lr by default', async () => {
    expect(await ratesOf()).toEqual([1e-2, 1e-2, 1e-2, 1e-2, 1e-2]);
  });

  it('decays along a half cosine over the steps to min_lr_ratio x lr with the cosine schedule', async () => {
    const rates = await ratesOf({ type: 'cosine', minLrRatio: 0.1 });
    const expected = [0, 1, 2, 3, 4].map((step) => 1e-2 * (0.1 + 0.9 * 0.5 * (1 + Math.cos((Math.PI * step) / 5))));
    expect(rates).toHaveLength(5);
    rates.forEach((rate, i) => expect(rate).toBeCloseTo(expected[i], 12));
    expect(rates[0]).toBe(1e-2);
  });
});
