/**
 * The softmax of an LM head's logits on wasm, a row at a time in TurnLab's own kernel
 * (wasm-kernels/head.wat, SIMD, on tfjs's memory): the scored token's logprob, the entropy and
 * both gradients with respect to the logits in two passes over a row, and a decoding step's
 * draw without reading the logits back into JavaScript. tfjs's ops take a dozen passes over a
 * [rows, vocab] chunk for the same numbers, each writing a new chunk-sized tensor; with Qwen's
 * 151,936 ids those passes, not the head's product, were most of a scored token's time.
 */
import * as tf from '@tensorflow/tfjs';
import { DEFAULT_CHUNK_ELEMENTS } from './chunked-head';
import type { HeadScoreKernels } from './fused-kernels';
import { addressOf, headKernelsFor, type WasmBackendInternals } from './wasm-kernels/instance';

export interface SoftmaxScores {
  /** [rows, 3]: the log-sum-exp of z / T, log p(target) and the entropy under softmax(z / T). */
  scores: tf.Tensor2D;
  /** [rows, vocab]: d logprob / dz (with gradients). */
  dLogprob?: tf.Tensor2D;
  /** [rows, vocab]: d entropy / dz (with gradients): z's own buffer, overwritten. */
  dEntropy?: tf.Tensor2D;
}

function wasmBackend(): WasmBackendInternals {
  if (tf.getBackend() !== 'wasm') throw new Error(`The fused head softmax runs on wasm, not ${tf.getBackend()}`);
  return tf.backend() as unknown as WasmBackendInternals;
}

/**
 * Scores rows of raw logits z [rows, vocab] at the int32 `ids`. With `gradients`, z is consumed:
 * its buffer is returned as dEntropy (the caller must not read z again, nor hold another view of it).
 */
export function headSoftmaxScores(z: tf.Tensor2D, ids: tf.Tensor1D, temperature: number, gradients: boolean): SoftmaxScores {
  const backend = wasmBackend();
  const [rows, vocab] = z.shape;
  if (ids.dtype !== 'int32' || ids.size !== rows) throw new Error(`head softmax: ${rows} rows need ${rows} int32 ids, got ${ids.size} ${ids.dtype}`);
  const out = backend.makeOutput([rows, 3], 'float32');
  const c1 = gradients ? backend.makeOutput([rows, vocab], 'float32') : null;
  if (rows > 0) {
    headKernelsFor(backend).stats(addressOf(backend, z), addressOf(backend, ids), rows, vocab, 1 / temperature, addressOf(backend, out), c1 ? addressOf(backend, c1) : 0);
  }
  const scores = tf.engine().makeTensorFromTensorInfo(out) as tf.Tensor2D;
  if (!c1) return { scores };
  return { scores, dLogprob: tf.engine().makeTensorFromTensorInfo(c1) as tf.Tensor2D, dEntropy: z };
}

/**
 * The same kernel as the statistics of a trainable head's chunks (chunked-head.ts's recomputing
 * path, which needs the logits again for the head's own gradient): tfjs's float32 sums over
 * 151,936 logits are off by about 3e-4 in a logprob, the kernel's by about 1e-6, and a LoRA
 * model (frozen head) must score as its base model (trainable head) does.
 */
export const wasmHeadScoreKernels: HeadScoreKernels = {
  statistics: (z, ids, temperature) => {
    const { scores } = headSoftmaxScores(z, ids, temperature, false);
    return scores;
  },
  // The row's sums are taken again rather than read from the saved statistics: one more pass
  // over a row the kernel reads anyway. z's buffer becomes dEntropy's.
  gradient: (z, _stats, ids, dy, temperature) => {
    const { dLogprob, dEntropy } = headSoftmaxScores(z, ids, temperature, true);
    const gz = tf.tidy(() => dLogprob!.mul(dy.slice([0, 0], [-1, 1])).add(dEntropy!.mul(dy.slice([0, 1], [-1, 1])))) as tf.Tensor2D;
    tf.dispose([dLogprob!, dEntropy!]);
    return gz;
  },
  chunkElements: () => DEFAULT_CHUNK_ELEMENTS,
};

/**
 * A decoding step's tokens from logits [rows, vocab] (any shape holding them, row-major): row b
 * draws by inverse CDF at draws[b] in [0, 1), or takes the first largest logit when `greedy`;
 * a negative draw skips the row (it has finished). Returns [token, logprob] pairs, the logprob
 * under softmax(logits / temperature); a skipped row's pair is undefined.
 */
export function headSoftmaxSample(logits: tf.Tensor, rows: number, vocab: number, draws: Float32Array, temperature: number, greedy: boolean): Float32Array {
  const backend = wasmBackend();
  if (logits.size !== rows * vocab || draws.length !== rows) throw new Error(`head sampling: ${rows} rows of ${vocab} need ${rows * vocab} logits and ${rows} draws`);
  const at = tf.tensor1d(draws, 'float32');
  const out = backend.makeOutput([rows, 2], 'float32');
  // Two float64s per block of 256 logits: the kernel's record of each block's sum.
  const blocks = backend.makeOutput([Math.ceil(vocab / 256) * 4], 'float32');
  headKernelsFor(backend).sample(addressOf(backend, logits), addressOf(backend, at), rows, vocab, 1 / temperature, greedy ? 1 : 0, addressOf(backend, out), addressOf(backend, blocks));
  const picked = tf.engine().makeTensorFromTensorInfo(out);
  const values = picked.dataSync() as Float32Array;
  tf.dispose([at, picked, tf.engine().makeTensorFromTensorInfo(blocks)]);
  return values;
}
