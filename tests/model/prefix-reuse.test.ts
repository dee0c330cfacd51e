import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { PrefixCache } from '../../trainer-core/model/prefix-cache';
import { sampleTokens, type SampleOptions } from '../../trainer-core/model/sampler';
import { scoreTokens } from '../../trainer-core/model/scoring';
import { Transformer, type PositionEncoding } from '../../trainer-core/model/transformer';
import { Rng } from '../../trainer-core/rng';

const EOT = 1;
/** Every prompt starts with the same six tokens (a system prompt), then its own board. */
const SYSTEM = [3, 4, 5, 6, 7, 8];
const firstPrompts = [[...SYSTEM, 9, 10], [...SYSTEM, 11, 12, 13, 14], [...SYSTEM, 15]];
const keys = [0, 1, 2];

beforeAll(async () => {
  await selectBackend('wasm');
});

function options(rng: Rng, extra: Partial<SampleOptions> = {}): SampleOptions {
  return { maxNewTokens: 6, temperature: 0.9, stopIds: [EOT], rng, ...extra };
}

function fullForward(model: Transformer, prompts: number[][], tokens: number[][], temperature: number): number[][] {
  const rows = prompts.map((p, i) => [...p, ...tokens[i]]);
  const all = tf.tidy(() => scoreTokens(model, rows, { temperature }).logprobs!.arraySync());
  return prompts.map((p, i) => all[i].slice(p.length, p.length + tokens[i].length));
}

/** The next turn's prompts: row 0 continues its episode, row 1 keeps only part of its reply (a reply cut to its limit), row 2's window slid (only the system prompt is shared). */
function nextPrompts(previous: number[][], replies: number[][]): number[][] {
  return [
    [...previous[0], ...replies[0], 20, 21, 22],
    [...previous[1], ...replies[1].slice(0, 1), EOT, 23, 24],
    [...SYSTEM, 25, 26, 27],
  ];
}

describe.each(['learned', 'rope'] as PositionEncoding[])('prefix reuse across turns (%s positions)', (positionEncoding) => {
  let model: Transformer;
  beforeAll(() => {
    model = Transformer.create({ vocabSize: 30, contextLength: 64, dModel: 16, nLayers: 2, nHeads: 2, positionEncoding }, 4);
    // Fresh weights (std 0.02) attend almost uniformly, so a wrong key or value would barely move
    // a logprob: sharper weights make every cached column count.
    for (const [name, variable] of model.namedVariables()) {
      if (/weight|emb/.test(name)) variable.assign(tf.tidy(() => variable.mul(15)));
    }
  });
  afterAll(() => model.dispose());

  it('samples the same tokens and logprobs as re-encoding every prompt, turn after turn', async () => {
    const before = tf.memory().numTensors;
    const cache = new PrefixCache();
    const rngReuse = new Rng(7);
    const rngFull = new Rng(7);
    let prompts = firstPrompts.map((p) => [...p]);
    for (let turn = 0; turn < 3; turn++) {
      const reused = await sampleTokens(model, prompts, options(rngReuse, { prefixCache: cache, rowKeys: keys }));
      const full = await sampleTokens(model, prompts, options(rngFull));
      expect(reused.tokens).toEqual(full.tokens);
      const expected = fullForward(model, prompts, reused.tokens, 0.9);
      reused.logprobs.forEach((row, i) =>
        row.forEach((lp, j) => {
          expect(Math.abs(lp - full.logprobs[i][j])).toBeLessThan(1e-4);
          expect(Math.abs(lp - expected[i][j])).toBeLessThan(1e-4);
        }),
      );
      prompts = nextPrompts(prompts, reused.tokens);
    }
    cache.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('encodes only the tokens after the stored prefix', async () => {
    const cache = new PrefixCache();
    const first = await sampleTokens(model, firstPrompts, options(new Rng(3), { prefixCache: cache, rowKeys: keys }));
    const next = nextPrompts(firstPrompts, first.tokens);
    const fed: number[] = [];
    const counting = {
      config: model.config,
      forward: (input: Parameters<Transformer['forward']>[0], opts?: Parameters<Transformer['forward']>[1]) => {
        fed.push(input.tokens.shape[1]);
        return model.forward(input, opts);
      },
    };
    await sampleTokens(counting, next, options(new Rng(3), { prefixCache: cache, rowKeys: keys, maxNewTokens: 1 }));
    // Row 0 feeds its reply's last token (never fed while sampling) and the 3 env tokens; row 1
    // at most as many; row 2's window slid and it shares the system prompt only: 3 new tokens.
    expect(fed[0]).toBe(4);
    expect(Math.max(...next.map((p) => p.length))).toBeGreaterThan(10);
    cache.dispose();
  });
});
