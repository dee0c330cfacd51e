/**
 * Causal self-attention over a KV cache with grouped-query heads, shared by TurnLab's own
 * transformer (as many key/value heads as query heads) and the Hugging Face decoders.
 *
 * Grouped-query attention without copying keys: the `rep` query heads that share a key/value
 * head are stacked along time and multiplied with that head's keys in one batched matmul.
 */
import * as tf from '@tensorflow/tfjs';
import { fusedKernels, recordingGradients } from '../fused-kernels';
import { matmul, matmulTransposed, swapLast, transposesInPlace } from './linear';
import { rotate, type Rotation } from './rotary';
import type { KVCache, LayerCache } from './tensor-shapes';

export type { KVCache, LayerCache };

export interface AttentionShape {
  batch: number;
  time: number;
  nHeads: number;
  nKvHeads: number;
  headDim: number;
}

export interface AttentionInputs {
  /** Projections [batch * time, heads * headDim]. */
  q: tf.Tensor2D;
  k: tf.Tensor2D;
  v: tf.Tensor2D;
  /** Applied to q and k as [batch, time, heads, headDim] before the rotation (Qwen3's qk-norm). */
  normalize?: (q: tf.Tensor4D, k: tf.Tensor4D) => [tf.Tensor4D, tf.Tensor4D];
  rope: Rotation | null;
  /** Additive bias [batch, 1, time, keys]. */
  bias: tf.Tensor4D;
  cache?: LayerCache;
  frozen?: LayerCache;
  /**
   * Read `frozen` in place (two weighted sums added) rather than concatenated in front of the
   * keys. In place saves a copy of the prompt's keys per decoding step (most of a step for
   * TurnLab's small models on wasm); concatenated sums in one product, as the Hugging Face
   * reference does, which keeps cached and uncached decoding of the large-vocabulary models
   * within 5e-6 of each other.
   */
  frozenInPlace?: boolean;
}

/** Returns the heads merged back to [batch * time, heads * headDim] and this layer's new cache. */
export function selfAttention(shape: AttentionShape, input: AttentionInputs): { merged: tf.Tensor2D; cache: LayerCache } {
  const { batch, time, nHeads, nKvHeads, headDim } = shape;
  let q4 = input.q.reshape([batch, time, nHeads, headDim]) as tf.Tensor4D;
  let k4 = input.k.reshape([batch, time, nKvHeads, headDim]) as tf.Tensor4D;
  if (input.normalize) [q4, k4] = input.normalize(q4, k4);
  // With one position per row, [batch, 1, heads, dim] and [batch, heads, 1, dim] are the same layout.
  const toHeads = (t: tf.Tensor4D) => (time === 1 ? t.reshape([batch, t.shape[2], 1, headDim]) : t.transpose([0, 2, 1, 3])) as tf.Tensor4D;
  const q = input.rope ? rotate(toHeads(q4), input.rope) : toHeads(q4);
  let k = input.rope ? rotate(toHeads(k4), input.rope) : toHeads(k4);
  let v = toHeads(input.v.reshape([batch, time, nKvHeads, headDim]) as tf.Tensor4D);
  if (input.cache) {
    k = tf.concat([input.cache.k, k], 2);
    v = tf.concat([input.cache.v, v], 2);
  }
  const cache = { k, v };
  let frozen = input.frozen;
  if (!recordingGradients()) {
    // Inference (decoding, a prompt's prefill, scoring without gradients): the kernel writes
    // the heads merged, and no [queries, keys] score matrix exists.
    const fused = fusedKernels().decodeAttention?.(q, k, v, input.bias, frozen);
    if (fused) return { merged: fused.reshape([batch * time, nHeads * headDim]), cache };
  }
  if (frozen && !input.frozenInPlace) {
    k = tf.concat([frozen.k, k], 2);
    v = tf.concat([frozen.v, v], 2);
    frozen = undefined;
  }
  const rep = nHeads / nKvHeads;
  // [batch * kvHeads, rep * time, headDim]: the query heads of one group stacked along time.
  const grouped = q.mul(1 / Math.sqrt(headDim)).reshape([batch * nKvHeads, rep * time, headDim]) as tf.Tensor3D;
  const attended = frozen ? attendWithFrozen(grouped, frozen, k, v, input.bias, nHeads) : attend(grouped, k, v, input.bias, nHeads);
  const merged = attended.reshape([batch, nHeads, time, headDim]).transpose([0, 2, 1, 3]).reshape([batch * time, nHeads * headDim]) as tf.Tensor2D;
  return { merged, cache };
}

/** Softmax attention of grouped queries over k, v [batch, kvHeads, keys, dim]. */
function attend(q: tf.Tensor3D, k: tf.Tensor4D, v: tf.Tensor4D, bias: tf.Tensor4D, nHeads: number): tf.Tensor {
  const [batch, kvHeads, keys, headDim] = k.shape;
  const time = q.shape[1] / (nHeads / kvHeads);
  const keys3 = k.reshape([batch * kvHeads, keys, headDim]);
  const scores = transposesInPlace() ? matmulTransposed(q, keys3) : matmul(q, swapLast(keys3));
  const weights = tf.softmax(scores.reshape([batch, nHeads, time, keys]).add(bias));
  return matmul(weights.reshape([batch * kvHeads, q.shape[1], keys]), v.reshape([batch * kvHeads, keys, headDim]));
}

/**
 * The same attention over frozen keys followed by k, v, without concatenating them: scores of
 * both blocks side by side (small), one softmax, and the two weighted sums added. transposeB
 * reads the keys in place, where an explicit transpose would copy them every step. Inference
 * only: its plain matmuls have slow gradients on wasm.
 */
function attendWithFrozen(q: tf.Tensor3D, frozen: LayerCache, k: tf.Tensor4D, v: tf.Tensor4D, bias: tf.Tensor4D, nHeads: number): tf.Tensor {
  const [batch, kvHeads, recent, headDim] = k.shape;
  const before = frozen.k.shape[2];
  const stacked = q.shape[1];
  const time = stacked / (nHeads / kvHeads);
  const groups = batch * kvHeads;
  const frozenV = frozen.v.reshape([groups, before, headDim]) as tf.Tensor3D;
  const frozenScores = frozen.keysByDim
    ? tf.matMul(q, frozen.keysByDim.reshape([groups, headDim, before]) as tf.Tensor3D)
    : tf.matMul(q, frozen.k.reshape([groups, before, headDim]) as tf.Tensor3D, false, true);
  const scores = tf.concat([frozenScores, tf.matMul(q, k.reshape([groups, recent, headDim]) as tf.Tensor3D, false, true)], 2);
  const weights = tf.softmax(scores.reshape([batch, nHeads, time, before + recent]).add(bias)).reshape([groups, stacked, before + recent]);
  const fromFrozen = tf.matMul(weights.slice([0, 0, 0], [groups, stacked, before]) as tf.Tensor3D, frozenV);
  const fromRecent = tf.matMul(weights.slice([0, 0, before], [groups, stacked, recent]) as tf.Tensor3D, v.reshape([groups, recent, headDim]) as tf.Tensor3D);
  return fromFrozen.add(fromRecent);
}

/** Adds keysByDim to each layer of a cache that will be read as `frozenCache` for many steps. */
export function prepareFrozenCache(cache: KVCache): KVCache {
  return cache.map((layer) => ({ ...layer, keysByDim: layer.keysByDim ?? (layer.k.transpose([0, 1, 3, 2]) as tf.Tensor4D) }));
}
