import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { pickToken, sampleTokens, type SampleOptions } from '../../trainer-core/model/sampler';
import { scoreTokens } from '../../trainer-core/model/scoring';
import { Transformer, type PositionEncoding } from '../../trainer-core/model/transformer';
import { Rng } from '../../trainer-core/rng';

const EOT = 1;
const prompts = [[3, 4, 5], [6, 7, 8, 9, 10, 11, 12], [13]];
let model: Transformer;

beforeAll(async () => {
  await selectBackend('wasm');
});

function options(overrides: Partial<SampleOptions> = {}): SampleOptions {
  return { maxNewTokens: 10, temperature: 0.8, stopIds: [EOT], rng: new Rng(42), ...overrides };
}

function fullForwardLogprobs(result: { tokens: number[][] }, temperature: number): number[][] {
  const rows = prompts.map((p, i) => [...p, ...result.tokens[i]]);
  const all = tf.tidy(() => scoreTokens(model, rows, { temperature }).logprobs!.arraySync());
  return prompts.map((p, i) => all[i].slice(p.length, p.length + result.tokens[i].length));
}

describe.each(['learned', 'rope'] as PositionEncoding[])('sampleTokens (%s positions)', (positionEncoding) => {
  beforeAll(() => {
    model = Transformer.create({ vocabSize: 30, contextLength: 24, dModel: 16, nLayers: 2, nHeads: 2, valueHead: true, positionEncoding }, 9);
  });
  afterAll(() => model.dispose());

  it('records logprobs equal to a full forward pass within 1e-4 (temperature, top-k, top-p)', async () => {
    for (const extra of [{}, { topK: 5 }, { topP: 0.7 }, { temperature: 1.3, topK: 8, topP: 0.9 }]) {
      const opts = options(extra);
      const result = await sampleTokens(model, prompts, opts);
      const expected = fullForwardLogprobs(result, opts.temperature!);
      result.logprobs.forEach((row, i) => row.forEach((lp, j) => expect(Math.abs(lp - expected[i][j])).toBeLessThan(1e-4)));
      expect(result.tokens.some((row) => row.length > 1)).toBe(true);
    }
  });

  it('produces the same tokens with and without the KV cache for the same seed', async () => {
    const cached = await sampleTokens(model, prompts, options({ topP: 0.95 }));
    const uncached = await sampleTokens(model, prompts, options({ topP: 0.95, useCache: false }));
    expect(uncached.tokens).toEqual(cached.tokens);
    uncached.logprobs.forEach((row, i) => row.forEach((lp, j) => expect(lp).toBeCloseTo(cached.logprobs[i][j], 4)));
  });

  it('is reproducible per seed and varies across seeds', async () => {
    const a = await sampleTokens(model, prompts, options({ temperature: 2 }));
    const b = await sampleTokens(model, prompts, options({ temperature: 2 }));
    const c = await sampleTokens(model, prompts, options({ temperature: 2, rng: new Rng(43) }));
    expect(b.tokens).toEqual(a.tokens);
    expect(c.tokens).not.toEqual(a.tokens);
  });

  it('gives each row the same tokens whatever else is in the batch (greedy)', async () => {
    const batched = await sampleTokens(model, prompts, options({ greedy: true }));
    for (let i = 0; i < prompts.length; i++) {
      const alone = await sampleTokens(model, [prompts[i]], options({ greedy: true }));
      expect(alone.tokens[0]).toEqual(batched.tokens[i]);
    }
  });

  it('stops each row at end-of-turn and caps at maxNewTokens and the context', async () => {
    const result = await sampleTokens(model, prompts, options({ maxNewTokens: 6, temperature: 3 }));
    result.tokens.forEach((row, i) => {
      expect(row.length).toBeLessThanOrEqual(6);
      const eot = row.indexOf(EOT);
      if (result.stopped[i]) expect(eot).toBe(row.length - 1);
      else expect(eot).toBe(-1);
    });
    const long = await sampleTokens(model, [Array.from({ length: 20 }, (_, i) => 2 + (i % 20))], options({ maxNewTokens: 50, stopIds: [] }));
    expect(long.tokens[0]).toHaveLength(4);
    await expect(sampleTokens(model, [Array.from({ length: 24 }, () => 2)], options())).rejects.toThrow(/no room to generate/);
    await expect(sampleTokens(model, prompts, options({ topP: 0 }))).rejects.toThrow(/topP must be in/);
  });

  it('stops a row once its tokens end with a stop sequence, keeping the sequence', async () => {
    const free = await sampleTokens(model, prompts, options({ greedy: true, stopIds: [], maxNewTokens: 8 }));
    const row = free.tokens[1];
    const sequence = row.slice(3, 5);
    const first = row.findIndex((_, i) => i >= 1 && row[i - 1] === sequence[0] && row[i] === sequence[1]);
    const cut = await sampleTokens(model, prompts, options({ greedy: true, stopIds: [], maxNewTokens: 8, stopSequences: [[99, 98], sequence] }));
    expect(cut.tokens[1]).toEqual(row.slice(0, first + 1));
    expect(cut.stopped[1]).toBe(true);
    expect(cut.logprobs[1]).toEqual(free.logprobs[1].slice(0, first + 1));
  });

  it('greedy decoding picks the argmax and records the temperature-1 logprob', async () => {
    const result = await sampleTokens(model, prompts, options({ temperature: 0 }));
    const expected = fullForwardLogprobs(result, 1);
    result.logprobs.forEach((row, i) => row.forEach((lp, j) => expect(Math.abs(lp - expected[i][j])).toBeLessThan(1e-4)));
    const again = await sampleTokens(model, prompts, options({ greedy: true, rng: new Rng(7) }));
    expect(again.tokens).toEqual(result.tokens);
  });

  it('does not leak tensors across repeated sampling', async () => {
    await sampleTokens(model, prompts, options());
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) {
      await sampleTokens(model, prompts, options({ rng: new Rng(i) }));
      await sampleTokens(model, prompts, options({ rng: new Rng(i), useCache: false, maxNewTokens: 3 }));
    }
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('pickToken', () => {
  const logits = Float32Array.from([0, 2, 1, -1]);
  const decoding = { greedy: false, temperature: 1, topP: 1, topK: 0 };

  it('never leaves the top-k set and respects top-p', () => {
    const rng = new Rng(1);
    for (let i = 0; i < 200; i++) {
      expect([1, 2]).toContain(pickToken(logits, 0, 4, { ...decoding, topK: 2 }, rng).token);
      expect(pickToken(logits, 0, 4, { ...decoding, topP: 0.5 }, rng).token).toBe(1);
    }
  });

  it('samples in proportion to softmax(logits / T)', () => {
    const rng = new Rng(2);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[pickToken(logits, 0, 4, decoding, rng).token]++;
    const z = [0, 2, 1, -1].map(Math.exp);
    const sum = z.reduce((a, b) => a + b, 0);
    counts.forEach((count, i) => expect(count / 4000).toBeCloseTo(z[i] / sum, 1));
    const { logprob } = pickToken(logits, 0, 4, { ...decoding, greedy: true }, rng);
    expect(logprob).toBeCloseTo(2 - Math.log(sum), 6);
  });
});
