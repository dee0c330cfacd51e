// The LM head's row-wise softmax on wasm (model/head-softmax.ts, the head.wat kernel) as scoring
// and sampling use it: logprobs, entropies and the hidden states' gradient through a frozen head
// (16-bit and float32) against a float64 reference written here and against tfjs's ops (the
// unfused path), within 1e-5; the draw against sampler.ts's float64 JavaScript draw.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { scoreThroughHead } from '../../trainer-core/model/chunked-head';
import type { LmHead } from '../../trainer-core/model/forward';
import { setFusedKernels } from '../../trainer-core/model/fused-kernels';
import { HalfMatrix, widenHalves } from '../../trainer-core/model/half-matrix';
import { headSoftmaxSample } from '../../trainer-core/model/head-softmax';
import { toBf16Bits } from '../../trainer-core/model/hf/weights';
import { pickToken } from '../../trainer-core/model/sampler';
import { Rng } from '../../trainer-core/rng';

const WIDTH = 16;
const TEMPERATURE = 0.7;

interface Case {
  hidden: Float32Array;
  rows: number;
  targets: Int32Array;
  /** Upstream gradient of (logprob, entropy) per row. */
  upstream: Float32Array;
}

/** Rows of hidden states: the last two scaled up so that their logits span about a hundred (exp's clamp, near-one-hot rows). */
function makeCase(rows: number, vocab: number, seed: number): Case {
  const rng = new Rng(seed);
  const hidden = Float32Array.from({ length: rows * WIDTH }, (_, i) => rng.normal() * (Math.floor(i / WIDTH) >= rows - 2 ? 20 : 1));
  const targets = Int32Array.from({ length: rows }, (_, r) => (r === 0 ? vocab - 1 : rng.int(vocab)));
  const upstream = Float32Array.from({ length: rows * 2 }, () => rng.normal());
  return { hidden, rows, targets, upstream };
}

/** float64: per row logprob, entropy, and d(sum a logprob + b entropy)/dh, for W [vocab, width]. */
function reference(c: Case, w: Float32Array, vocab: number) {
  const logprob: number[] = [];
  const entropy: number[] = [];
  const grad = new Float64Array(c.rows * WIDTH);
  for (let r = 0; r < c.rows; r++) {
    const z = new Float64Array(vocab);
    for (let v = 0; v < vocab; v++) {
      let sum = 0;
      for (let k = 0; k < WIDTH; k++) sum += c.hidden[r * WIDTH + k] * w[v * WIDTH + k];
      z[v] = sum / TEMPERATURE;
    }
    const max = Math.max(...z);
    let total = 0;
    for (let v = 0; v < vocab; v++) total += Math.exp(z[v] - max);
    const lse = max + Math.log(total);
    let h = 0;
    for (let v = 0; v < vocab; v++) h -= Math.exp(z[v] - lse) * (z[v] - lse);
    logprob.push(z[c.targets[r]] - lse);
    entropy.push(h);
    const [a, b] = [c.upstream[2 * r], c.upstream[2 * r + 1]];
    for (let v = 0; v < vocab; v++) {
      const p = Math.exp(z[v] - lse);
      const dz = (a * ((v === c.targets[r] ? 1 : 0) - p) - b * p * (z[v] - lse + h)) / TEMPERATURE;
      for (let k = 0; k < WIDTH; k++) grad[r * WIDTH + k] += dz * w[v * WIDTH + k];
    }
  }
  return { logprob, entropy, grad: Array.from(grad) };
}

function scored(c: Case, head: LmHead, chunkElements: number) {
  const hidden = tf.tensor2d(c.hidden, [c.rows, WIDTH]);
  const dy = tf.tensor2d(c.upstream, [c.rows, 2]);
  let values: number[][] = [];
  const grad = tf.grad((h: tf.Tensor) => {
    const s = scoreThroughHead(h as tf.Tensor2D, c.targets, head, { temperature: TEMPERATURE, chunkElements });
    const both = tf.stack([s.logprobs, s.entropy], 1);
    values = both.arraySync() as number[][];
    return both.mul(dy).sum();
  })(hidden);
  // Without a gradient tape: the forward-only path.
  const plain = tf.tidy(() => {
    const s = scoreThroughHead(hidden, c.targets, head, { temperature: TEMPERATURE, chunkElements });
    return tf.stack([s.logprobs, s.entropy], 1).arraySync() as number[][];
  });
  const out = { logprob: values.map((v) => v[0]), entropy: values.map((v) => v[1]), plain, grad: Array.from(grad.dataSync()) };
  tf.dispose([hidden, dy, grad]);
  return out;
}

/** Within tol of the reference, relative to its largest entry where that exceeds 1. */
function expectClose(actual: number[], expected: number[], tol: number, what: string): void {
  const scale = Math.max(1, ...expected.map(Math.abs));
  const worst = Math.max(...actual.map((v, i) => Math.abs(v - expected[i]))) / scale;
  expect(worst, `${what}: worst ${worst} at scale ${scale}`).toBeLessThan(tol);
}

describe('the LM head softmax on wasm', () => {
  beforeAll(async () => {
    await selectBackend('wasm');
  });
  afterAll(() => setFusedKernels(true));

  // 1,003 ids: not a multiple of four (the kernels' scalar tails); 8,191 with several chunks.
  for (const [vocab, rows, chunkElements] of [[1003, 7, 1 << 22], [8191, 9, 4 * 8191]] as const) {
    it(`scores ${rows} rows over ${vocab} ids through a frozen 16-bit and float32 head as float64 does`, () => {
      const rng = new Rng(vocab);
      const bits = Uint16Array.from({ length: vocab * WIDTH }, () => toBf16Bits(rng.normal() * 0.5));
      const w = widenHalves(bits, 'BF16');
      const half = HalfMatrix.fromBits(bits, vocab, WIDTH, 'BF16');
      const weight = tf.tensor2d(w, [vocab, WIDTH]).transpose() as tf.Tensor2D;
      const c = makeCase(rows, vocab, vocab + 1);
      const expected = reference(c, w, vocab);
      // The near-one-hot rows are there: their entropy is tiny, the others' near log(vocab).
      expect(Math.min(...expected.entropy)).toBeLessThan(0.5);
      const before = tf.memory().numTensors;
      const fusedScores = new Map<string, ReturnType<typeof scored>>();
      for (const fused of [true, false]) {
        setFusedKernels(fused);
        for (const [name, head] of [['16-bit', { half, trainable: false }], ['float32', { weight, vocabMajor: false, trainable: false }]] as const) {
          const got = scored(c, head, chunkElements);
          const label = `${name} ${fused ? 'fused' : 'tfjs'}`;
          // tfjs's float32 ops (a log-softmax over the chunk, then exp of it) come within 3e-5
          // of float64 here; the kernel, whose sums over the vocabulary end in float64, within 1e-5.
          const tol = fused ? 1e-5 : 1e-4;
          expectClose(got.logprob, expected.logprob, tol, `${label} logprob`);
          expectClose(got.entropy, expected.entropy, tol, `${label} entropy`);
          expectClose(got.plain.map((v) => v[0]), expected.logprob, tol, `${label} logprob without a tape`);
          expectClose(got.plain.map((v) => v[1]), expected.entropy, tol, `${label} entropy without a tape`);
          expectClose(got.grad, expected.grad, tol, `${label} gradient`);
          if (fused) fusedScores.set(name, got);
          else {
            // and the two paths agree
            const kernel = fusedScores.get(name)!;
            expectClose(kernel.logprob, got.logprob, 1e-4, `${name} fused vs tfjs logprob`);
            expectClose(kernel.grad, got.grad, 1e-4, `${name} fused vs tfjs gradient`);
          }
        }
      }
      setFusedKernels(true);
      expect(tf.memory().numTensors).toBe(before);
      tf.dispose(weight);
      half.dispose();
    });
  }

  it('draws the tokens the JavaScript sampler draws, with the same logprobs; greedy takes the first largest', () => {
    const vocab = 5003;
    const rows = 6;
    const rng = new Rng(5);
    const logits = Float32Array.from({ length: rows * vocab }, (_, i) => rng.normal() * (Math.floor(i / vocab) === 5 ? 30 : 2));
    // Row 4: a tie for the largest logit; greedy takes the first.
    logits[4 * vocab + 17] = 50;
    logits[4 * vocab + 4000] = 50;
    const z = tf.tensor2d(logits, [rows, vocab]);
    for (const greedy of [false, true]) {
      for (const temperature of [1, 0.6]) {
        const decoding = { greedy, temperature: greedy ? 1 : temperature, topP: 1, topK: 0 };
        for (let trial = 0; trial < 20; trial++) {
          const drawRng = new Rng(100 + trial);
          const expected = Array.from({ length: rows }, (_, b) => pickToken(logits, b * vocab, vocab, decoding, drawRng));
          const again = new Rng(100 + trial);
          const draws = Float32Array.from({ length: rows }, () => (greedy ? 0 : again.next()));
          // Row 2 has finished: no draw.
          draws[2] = -1;
          const got = headSoftmaxSample(z, rows, vocab, draws, decoding.temperature, greedy);
          for (let b = 0; b < rows; b++) {
            if (b === 2) continue;
            expect(got[2 * b], `row ${b}`).toBe(expected[b].token);
            expect(Math.abs(got[2 * b + 1] - expected[b].logprob)).toBeLessThan(1e-5);
          }
          if (greedy) {
            expect(got[8]).toBe(17);
            break;
          }
        }
      }
    }
    z.dispose();
  });
});
