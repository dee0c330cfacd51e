/**
 * The softmax of an LM head's logits on wasm, a row at a time in TurnLab's own kernel
 * (wasm-kernels/head.wat, SIMD, on tfjs's memory): the scored token's logprob, the entropy and
 * both gradients with respect to the logits in two passes over a row, and a decoding step's
 * draw without reading the logits back into JavaScript. tfjs's ops take a dozen passes over a
 * [rows, vocab] chunk for the same numbers, each writing a new chunk-sized tensor; with Qwen's
 * 151,936 ids those passes, not the head's product, were most of a scored token's time.
 */
import * as tf from '@tensorflow/tfjs';
import { addressOf, headKernelsFor, type WasmBackendInternals } from './wasm-kernels/instance';

export interface SoftmaxScores {
  /** [rows, 2]: log p(target) and the entropy under softmax(z / T). */
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
  const out = backend.makeOutput([rows, 2], 'float32');
  const c1 = gradients ? backend.makeOutput([rows, vocab], 'float32') : null;
  if (rows > 0) {
    headKernelsFor(backend).stats(addressOf(backend, z), addressOf(backend, ids), rows, vocab, 1 / temperature, addressOf(backend, out), c1 ? addressOf(backend, c1) : 0);
  }
  const scores = tf.engine().makeTensorFromTensorInfo(out) as tf.Tensor2D;
  if (!c1) return { scores };
  return { scores, dLogprob: tf.engine().makeTensorFromTensorInfo(c1) as tf.Tensor2D, dEntropy: z };
}

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
