import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { phase, phaseCount, startPhaseProfile, type PhaseRecord } from '../../trainer-core/model/phase-profile';
import { PrefixCache } from '../../trainer-core/model/prefix-cache';
import { sampleTokens } from '../../trainer-core/model/sampler';
import { Transformer } from '../../trainer-core/model/transformer';
import { Rng } from '../../trainer-core/rng';

beforeAll(async () => {
  await selectBackend('wasm');
});

describe('phase profile', () => {
  it('does nothing without a running profile', async () => {
    phaseCount('ignored', 3);
    expect(await phase('alone', () => 7)).toBe(7);
  });

  it('records nested phases with their kernels and own counts, in the order they started', async () => {
    const profile = startPhaseProfile();
    try {
      await phase('outer', async () => {
        phaseCount('rows', 2);
        await phase('inner', () => tf.tidy(() => tf.add(tf.ones([2]), tf.ones([2])).dispose()));
        await phase('inner', () => phaseCount('rows', 5));
      });
      const records = profile.take();
      expect(records.map((r) => [r.name, r.calls, r.counts])).toEqual([
        ['outer', 1, { rows: 2 }],
        ['outer/inner', 2, { rows: 5 }],
      ]);
      expect(records[1].gpu.kernels).toBeGreaterThanOrEqual(1);
      expect(records[0].gpu.kernels).toBe(records[1].gpu.kernels);
      expect(profile.take()).toEqual([]);
    } finally {
      profile.stop();
    }
  });
});

describe('prefix reuse at a larger batch', () => {
  let model: Transformer;
  beforeAll(() => {
    model = Transformer.create({ vocabSize: 30, contextLength: 64, dModel: 16, nLayers: 2, nHeads: 2, positionEncoding: 'rope' }, 4);
  });
  afterAll(() => model.dispose());

  /** Kernels of the second turn's prefill and prefix store, with `rows` episodes. */
  async function secondTurnKernels(rows: number): Promise<{ prefill: number; store: number }> {
    const cache = new PrefixCache();
    const keys = Array.from({ length: rows }, (_, i) => i);
    const prompts = keys.map((i) => [3, 4, 5, 6, 7, 8, 9 + (i % 5), 10 + (i % 7)]);
    const options = { maxNewTokens: 3, temperature: 1, stopIds: [], rng: new Rng(1), prefixCache: cache, rowKeys: keys };
    const first = await sampleTokens(model, prompts, options);
    const profile = startPhaseProfile();
    let records: PhaseRecord[];
    try {
      await sampleTokens(model, prompts.map((p, i) => [...p, ...first.tokens[i], 20]), options);
      records = profile.take();
    } finally {
      profile.stop();
      cache.dispose();
    }
    const kernels = (name: string) => records.find((r) => r.name === name)?.gpu.kernels ?? -1;
    return { prefill: kernels('prefill'), store: kernels('prefix store') };
  }

  it('gathers and stores every row of a turn in a number of kernels that does not grow with the rows', async () => {
    const few = await secondTurnKernels(2);
    const many = await secondTurnKernels(12);
    expect(few.store).toBeGreaterThan(0);
    expect(many.store).toBe(few.store);
    expect(many.prefill).toBe(few.prefill);
  });
});
