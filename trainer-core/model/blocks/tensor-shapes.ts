// The tensors that blocks and the fused kernels hand each other, in a module of their own so the
// kernels (model/fused-kernels.ts) can name them without importing the blocks that call them.
import type * as tf from '@tensorflow/tfjs';

export interface Rotation {
  /** [batch, 1, time, headDim/2] */
  cos: tf.Tensor4D;
  sin: tf.Tensor4D;
}

/** Keys and values of every past position, per layer: [batch, kvHeads, past, headDim]. */
export interface LayerCache {
  k: tf.Tensor4D;
  v: tf.Tensor4D;
  /**
   * The same keys as [batch, kvHeads, dim, past], made once for a frozen cache (the prompt's) by
   * prepareFrozenCache: each decoding step then multiplies by them directly, where a transposed
   * operand would be copied into this layout at every step. Same products, same result.
   */
  keysByDim?: tf.Tensor4D;
}
export type KVCache = LayerCache[];
