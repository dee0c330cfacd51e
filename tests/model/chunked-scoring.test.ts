// Scoring through the LM head only at the scored positions, in chunks of rows (chunked-head.ts),
// against the full-logits path: logprobs, entropies and gradients agree within 1e-5 on every
// architecture, with LoRA and without, with and without recomputed (checkpointed) layers.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { HfDecoder } from '../../trainer-core/model/hf/decoder';
import { parseHfConfig } from '../../trainer-core/model/hf/config';
import { resolveTargetModules } from '../../trainer-core/model/hf/lora';
import type { LanguageModel } from '../../trainer-core/model/language-model';
import { scoreTokens, type ScoreOptions } from '../../trainer-core/model/scoring';
import { Transformer } from '../../trainer-core/model/transformer';
import { Rng } from '../../trainer-core/rng';
import { PRESETS, randomHfTensors } from '../../scripts/hf-random-model';

const VOCAB = 600;
const lora = { rank: 4, alpha: 8, targetModules: resolveTargetModules('all-linear') };

beforeAll(async () => {
  await selectBackend('wasm');
});

/** A tiny decoder of `preset`'s architecture with a small vocabulary; adapters randomised (a fresh B is zero). */
async function decoder(preset: string, withLora: boolean): Promise<HfDecoder> {
  const json = { ...PRESETS[preset], vocab_size: VOCAB };
  const model = HfDecoder.fromHfTensors(parseHfConfig(json), randomHfTensors(json, 3), { lora: withLora ? lora : null, contextLength: 128 });
  if (withLora) {
    const rng = new Rng(9);
    const arrays = await model.trainableArrays();
    for (const entry of Object.values(arrays)) for (let i = 0; i < entry.data.length; i++) entry.data[i] = rng.normal() * 0.3;
    model.loadTrainable(arrays, 'test');
  }
  return model;
}

interface Model extends LanguageModel {
  variables(): tf.Variable[];
}

/** Rows sharing a 20-token prefix (the shared-prefix path), of unequal lengths, and their loss masks. */
function batch(seed: number): { rows: number[][]; mask: number[][] } {
  const rng = new Rng(seed);
  const prefix = Array.from({ length: 20 }, () => rng.int(VOCAB));
  const rows = [9, 23, 4].map((extra) => [...prefix, ...Array.from({ length: extra }, () => rng.int(VOCAB))]);
  const mask = rows.map((row) => row.map((_, t) => (t >= 18 && rng.next() < 0.7 ? 1 : 0)));
  return { rows, mask };
}

/** Scores, and the gradient of a loss mixing masked logprobs and entropies, by parameter index. */
function run(model: Model, options: ScoreOptions, rows: number[][], mask: number[][]) {
  const m = tf.tensor2d(mask.map((r) => [...r, ...new Array(Math.max(...rows.map((x) => x.length)) - r.length).fill(0)]));
  let logprobs: number[][] = [];
  let entropy: number[][] = [];
  const { value, grads } = tf.variableGrads(() => {
    const s = scoreTokens(model, rows, { logprobs: true, entropy: true, temperature: 0.8, ...options });
    logprobs = s.logprobs!.mul(m).arraySync() as number[][];
    entropy = s.entropy!.mul(m).arraySync() as number[][];
    return s.logprobs!.mul(m).sum().add(s.entropy!.mul(m).mul(0.3).sum()) as tf.Scalar;
  }, model.variables());
  const byIndex = model.variables().map((v) => Array.from(grads[v.name].dataSync()));
  tf.dispose([value, m, ...Object.values(grads)]);
  return { logprobs, entropy, grads: byIndex };
}

/**
 * Within `tol`, relative to the tensor's largest entry where that exceeds 1: a gradient entry
 * near 1000 has a float32 spacing of 6e-5, so no two summation orders agree to 1e-5 absolute.
 */
function expectClose(a: number[] | number[][], b: number[] | number[][], tol: number, what: string): void {
  const x = a.flat();
  const y = b.flat();
  expect(x.length).toBe(y.length);
  const scale = Math.max(1, ...y.map(Math.abs));
  const worst = Math.max(...x.map((v, i) => Math.abs(v - y[i]))) / scale;
  if (!(worst < tol)) throw new Error(`${what}: worst ${worst} at scale ${scale}`);
}

function compare(model: Model): void {
  const { rows, mask } = batch(4);
  const full = run(model, { fullLogits: true }, rows, mask);
  // Three rows per chunk: the scored tokens span several chunks.
  const variants: ScoreOptions[] = [
    { scored: mask, chunkElements: 3 * VOCAB },
    { scored: mask, chunkElements: 3 * VOCAB, checkpointLayers: true },
    { scored: mask, chunkElements: 3 * VOCAB, transposedCopy: false },
    {},
  ];
  for (const options of variants) {
    const chunked = run(model, options, rows, mask);
    expectClose(chunked.logprobs, full.logprobs, 1e-5, 'logprobs');
    expectClose(chunked.entropy, full.entropy, 1e-5, 'entropy');
    full.grads.forEach((g, i) => expectClose(chunked.grads[i], g, 1e-5, `gradient ${i} ${JSON.stringify(options)}`.slice(0, 60)));
  }
  // The comparison means something: the scores vary and every trainable tensor has a gradient.
  expect(Math.max(...full.logprobs.flat()) - Math.min(...full.logprobs.flat())).toBeGreaterThan(1);
  expect(full.grads.every((g) => g.some((v) => v !== 0))).toBe(true);
}

describe('scoring only the scored positions, in chunks, equals the full-logits path', () => {
  for (const preset of ['tiny-qwen2', 'tiny-qwen3', 'tiny-llama']) {
    for (const withLora of [true, false]) {
      it(`${preset} ${withLora ? 'with LoRA' : 'fully trained'}`, async () => {
        const model = await decoder(preset, withLora);
        const before = tf.memory().numTensors;
        compare(model);
        expect(tf.memory().numTensors).toBe(before);
        model.dispose();
      });
    }
  }

  for (const tie of [true, false]) {
    it(`TurnLab's transformer, ${tie ? 'tied' : 'separate'} LM head`, () => {
      const model = Transformer.create({ vocabSize: VOCAB, contextLength: 64, dModel: 32, nLayers: 2, nHeads: 4, tieEmbeddings: tie, positionEncoding: 'rope' }, 5);
      const before = tf.memory().numTensors;
      compare(model);
      expect(tf.memory().numTensors).toBe(before);
      model.dispose();
    });
  }
});
