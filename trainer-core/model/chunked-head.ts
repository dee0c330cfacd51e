/**
 * The LM head applied only to the hidden states that are scored, in chunks of rows: each chunk's
 * logits, log-softmax, the target's logprob and the entropy are computed and dropped before the
 * next chunk, and the backward pass recomputes a chunk's logits instead of keeping them (the
 * idea of Liger-Kernel's fused linear cross-entropy and of cut-cross-entropy, arXiv 2411.09009).
 * No [scored tokens, vocab] tensor larger than one chunk exists, forward or backward.
 */
import * as tf from '@tensorflow/tfjs';
import { oneHotFloat } from './blocks/embedding';
import type { LmHead } from './forward';
import { HalfMatrix } from './half-matrix';
import { halfAxpy, halfDot } from './half-ops';
import { fusedKernels, recordingGradients, type HeadScoreKernels, type HeadSoftmaxKernels } from './fused-kernels';

/** Elements of one chunk's [rows, vocab] logits: 16 MB of float32. */
export const DEFAULT_CHUNK_ELEMENTS = 1 << 22;

export interface HeadScores {
  /** [rows]: log p(target) under softmax(logits / temperature). */
  logprobs: tf.Tensor1D;
  /** [rows]: the entropy of that distribution. */
  entropy: tf.Tensor1D;
}

export interface HeadScoreOptions {
  temperature: number;
  /** Elements of one chunk's logits; rows per chunk = max(1, floor(this / vocab)). */
  chunkElements?: number;
  /**
   * Give the backward pass one transposed copy of the head ([vocab, width]) for all chunks, or
   * multiply by the head with transposeB. The copy is the faster on wasm (an explicit transpose
   * and a plain product beat transposeB several times over) but costs the head's size again;
   * by default it is made for heads up to 64 MB.
   */
  transposedCopy?: boolean;
}

const TRANSPOSED_COPY_LIMIT = 1 << 24;

/**
 * Logprobs of `targets` and entropies for hidden states [rows, width] through `head`.
 * Differentiable with respect to `hidden` and, for a trainable head, its weight.
 */
export function scoreThroughHead(hidden: tf.Tensor2D, targets: Int32Array, head: LmHead, options: HeadScoreOptions): HeadScores {
  const rows = hidden.shape[0];
  if (targets.length !== rows) throw new Error(`${rows} hidden rows but ${targets.length} targets`);
  // [width, vocab]; a vocabulary-major table (a tied embedding) is transposed once, on the tape.
  // A 16-bit head is read as it is held by its own products (half-ops.ts), which on WebGPU feed
  // the fused statistics as tfjs's matmul does.
  const weight = 'half' in head ? head.half : ((head.vocabMajor ? head.weight.transpose() : head.weight) as tf.Tensor2D);
  const vocab = weight instanceof HalfMatrix ? weight.rows : weight.shape[1];
  const fused = fusedKernels().headScores ?? null;
  // A frozen head's softmax a row at a time (wasm), its gradients formed in the forward pass.
  const softmax = head.trainable ? null : (fusedKernels().headSoftmax ?? null);
  const perChunk = Math.max(1, Math.floor((options.chunkElements ?? fused?.chunkElements() ?? DEFAULT_CHUNK_ELEMENTS) / vocab));
  const chunks = Math.ceil(rows / perChunk);
  // The backward pass needs the weight as [vocab, width]; one transposed copy serves every chunk
  // and is freed after the last (a transpose per chunk would copy the whole head each time).
  const shared = { transposed: null as tf.Tensor2D | null, pending: chunks };
  const copy = !(weight instanceof HalfMatrix) && (options.transposedCopy ?? weight.size <= TRANSPOSED_COPY_LIMIT);
  const transposedFor = (w: tf.Tensor2D): tf.Tensor2D | null => {
    if (!copy) return null;
    if (!shared.transposed) shared.transposed = tf.keep(w.transpose() as tf.Tensor2D);
    return shared.transposed;
  };
  const release = () => {
    if (--shared.pending === 0 && shared.transposed) {
      shared.transposed.dispose();
      shared.transposed = null;
    }
  };
  const parts: tf.Tensor[] = [];
  for (let start = 0; start < rows; start += perChunk) {
    const size = Math.min(perChunk, rows - start);
    const h = rows === size ? hidden : hidden.slice([start, 0], [size, hidden.shape[1]]);
    const ids = tf.tensor1d(targets.subarray(start, start + size), 'int32');
    if (softmax) parts.push(softmaxChunk(h, ids, options.temperature, weight, transposedFor, release, softmax));
    else parts.push(head.trainable ? chunkOp(ids, options.temperature, null, transposedFor, release, fused)(h, weight as tf.Tensor2D) : chunkOp(ids, options.temperature, weight, transposedFor, release, fused)(h));
  }
  const both = parts.length === 1 ? parts[0] : tf.concat(parts, 0);
  return {
    logprobs: both.slice([0, 0], [rows, 1]).reshape([rows]) as tf.Tensor1D,
    entropy: both.slice([0, 1], [rows, 1]).reshape([rows]) as tf.Tensor1D,
  };
}

/** One chunk as a custom op: [rows, 2] (logprob, entropy), its gradient from recomputed logits. */
function chunkOp(
  ids: tf.Tensor1D,
  temperature: number,
  frozenWeight: tf.Tensor2D | HalfMatrix | null,
  transposedFor: (w: tf.Tensor2D) => tf.Tensor2D | null,
  release: () => void,
  fused: HeadScoreKernels | null,
): (...inputs: tf.Tensor[]) => tf.Tensor {
  if (fused) return fusedChunkOp(ids, temperature, frozenWeight, transposedFor, release, fused);
  return tf.customGrad((...args) => {
    const save = args[args.length - 1] as tf.GradSaveFunc;
    const h = args[0] as tf.Tensor2D;
    const w = frozenWeight ?? (args[1] as tf.Tensor2D);
    const { lse, logprob, entropy } = headStatistics(h, w, ids, temperature);
    // Saved, not captured: the forward scope disposes everything it did not save. A frozen
    // weight is a variable and outlives the pass. The per-row log-sum-exp and entropy are kept
    // (two numbers a row), so the backward pass recomputes only the logits.
    save(frozenWeight ? [h, ids, lse, entropy] : [h, ids, lse, entropy, w as tf.Tensor2D]);
    return {
      value: tf.stack([logprob, entropy], 1),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [hs, targets, lseSaved, entropySaved] = saved as [tf.Tensor2D, tf.Tensor1D, tf.Tensor2D, tf.Tensor1D];
        const ws = frozenWeight ?? (saved[4] as tf.Tensor2D);
        const transposed = ws instanceof HalfMatrix ? null : transposedFor(ws);
        // Inside tidy: the chunk's [rows, vocab] intermediates are freed before the next chunk's.
        const grads = tf.tidy(() => {
          const logp = logits(hs, ws, temperature).sub(lseSaved) as tf.Tensor2D;
          const vocab = logp.shape[1];
          const a = dy.slice([0, 0], [-1, 1]);
          const b = dy.slice([0, 1], [-1, 1]);
          // d logp(y)/dz = onehot(y) - p;  d H/dz = -p (log p + H).
          const gz = oneHotFloat(targets, vocab).mul(a).sub(logp.exp().mul(a.add(b.mul(logp.add(entropySaved.reshape([-1, 1])))))).div(temperature);
          const gh = ws instanceof HalfMatrix ? halfAxpy(gz as tf.Tensor2D, ws) : transposed ? tf.matMul(gz, transposed) : tf.matMul(gz, ws, false, true);
          return frozenWeight ? [gh] : [gh, tf.matMul(hs.transpose(), gz as tf.Tensor2D)];
        });
        release();
        return grads;
      },
    };
  }) as (...inputs: tf.Tensor[]) => tf.Tensor;
}

/**
 * The same chunk with the backend's fused statistics: the raw logits' product stays tfjs's
 * matmul (or the 16-bit head's own product), the log-softmax, target, entropy and their gradient are one kernel each way. The
 * statistics [rows, 3] are kept for the backward pass in place of the log-sum-exp and entropy.
 */
function fusedChunkOp(
  ids: tf.Tensor1D,
  temperature: number,
  frozenWeight: tf.Tensor2D | HalfMatrix | null,
  transposedFor: (w: tf.Tensor2D) => tf.Tensor2D | null,
  release: () => void,
  fused: HeadScoreKernels,
): (...inputs: tf.Tensor[]) => tf.Tensor {
  return tf.customGrad((...args) => {
    const save = args[args.length - 1] as tf.GradSaveFunc;
    const h = args[0] as tf.Tensor2D;
    const w = frozenWeight ?? (args[1] as tf.Tensor2D);
    const stats = fused.statistics(rawLogits(h, w), ids, temperature);
    save(frozenWeight ? [h, ids, stats] : [h, ids, stats, w as tf.Tensor2D]);
    return {
      value: stats.slice([0, 1], [-1, 2]),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [hs, targets, statsSaved] = saved as [tf.Tensor2D, tf.Tensor1D, tf.Tensor2D];
        const ws = frozenWeight ?? (saved[3] as tf.Tensor2D);
        const transposed = ws instanceof HalfMatrix ? null : transposedFor(ws);
        const grads = tf.tidy(() => {
          const gz = fused.gradient(rawLogits(hs, ws), statsSaved, targets, dy as tf.Tensor2D, temperature);
          const gh = ws instanceof HalfMatrix ? halfAxpy(gz, ws) : transposed ? tf.matMul(gz, transposed) : tf.matMul(gz, ws, false, true);
          return frozenWeight ? [gh] : [gh, tf.matMul(hs.transpose(), gz)];
        });
        release();
        return grads;
      },
    };
  }) as (...inputs: tf.Tensor[]) => tf.Tensor;
}

/** h times the head: [rows, vocab]. */
function rawLogits(h: tf.Tensor2D, w: tf.Tensor2D | HalfMatrix): tf.Tensor2D {
  return w instanceof HalfMatrix ? halfDot(h, w) : tf.matMul(h, w);
}

/**
 * One chunk through a frozen head with the backend's row-wise softmax. The scores are linear in
 * the upstream gradient dy = (a, b): dh = a (dlogprob/dz) W' + b (dentropy/dz) W' row by row,
 * so the forward pass, which has the logits, forms the two [rows, width] products once, and the
 * backward pass only weighs them: the logits are computed once, not recomputed.
 */
function softmaxChunk(
  h: tf.Tensor2D,
  ids: tf.Tensor1D,
  temperature: number,
  weight: tf.Tensor2D | HalfMatrix,
  transposedFor: (w: tf.Tensor2D) => tf.Tensor2D | null,
  release: () => void,
  softmax: HeadSoftmaxKernels,
): tf.Tensor {
  const product = (x: tf.Tensor2D): tf.Tensor2D => rawLogits(x, weight);
  if (!recordingGradients()) {
    const z = product(h);
    const { scores } = softmax.scores(z, ids, temperature, false);
    z.dispose();
    const both = scores.slice([0, 1], [-1, 2]);
    scores.dispose();
    return both;
  }
  // [rows, vocab] gradients times the head, back to [rows, width].
  const back = (g: tf.Tensor2D): tf.Tensor2D => {
    if (weight instanceof HalfMatrix) return halfAxpy(g, weight);
    const transposed = transposedFor(weight);
    return transposed ? tf.matMul(g, transposed) : tf.matMul(g, weight, false, true);
  };
  return tf.customGrad((...args) => {
    const save = args[args.length - 1] as tf.GradSaveFunc;
    const { scores, dLogprob, dEntropy } = softmax.scores(product(args[0] as tf.Tensor2D), ids, temperature, true);
    const perLogprob = back(dLogprob!);
    const perEntropy = back(dEntropy!);
    tf.dispose([dLogprob!, dEntropy!]);
    release();
    save([perLogprob, perEntropy]);
    return {
      value: scores.slice([0, 1], [-1, 2]),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => saved[0].mul(dy.slice([0, 0], [-1, 1])).add(saved[1].mul(dy.slice([0, 1], [-1, 1]))),
    };
  })(h);
}

/** The chunk's logits at the temperature: [rows, vocab]. */
function logits(h: tf.Tensor2D, w: tf.Tensor2D | HalfMatrix, temperature: number): tf.Tensor2D {
  const z = rawLogits(h, w);
  return (temperature === 1 ? z : z.div(temperature)) as tf.Tensor2D;
}

function headStatistics(h: tf.Tensor2D, w: tf.Tensor2D | HalfMatrix, ids: tf.Tensor1D, temperature: number): { lse: tf.Tensor2D; logprob: tf.Tensor1D; entropy: tf.Tensor1D } {
  const z = logits(h, w, temperature);
  const [rows, vocab] = z.shape;
  const max = z.max(1, true);
  const lse = z.sub(max).exp().sum(1, true).log().add(max) as tf.Tensor2D;
  // The target's logit by a flat gather: row r's target sits at r * vocab + id.
  const flat = ids.add(tf.range(0, rows, 1, 'int32').mul(tf.scalar(vocab, 'int32')));
  const logprob = z.reshape([-1]).gather(flat).sub(lse.reshape([rows])) as tf.Tensor1D;
  // -sum p log p over log-probabilities, not lse - sum p z: the latter cancels two large numbers.
  const logp = z.sub(lse);
  const entropy = logp.exp().mul(logp).sum(1).neg() as tf.Tensor1D;
  return { lse, logprob, entropy };
}
