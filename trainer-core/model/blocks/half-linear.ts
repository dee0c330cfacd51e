/**
 * A linear layer and an embedding lookup with a frozen 16-bit weight (model/half-matrix.ts,
 * [out, in]). The gradient reaches the input (and, through it, LoRA adapters and earlier
 * layers) by the product with the same 16-bit matrix; the weight itself gets none.
 */
import * as tf from '@tensorflow/tfjs';
import type { HalfMatrix } from '../half-matrix';
import { halfAxpy, halfDot, halfGather } from '../half-ops';

/** x [rows, in] @ W^T for W [out, in]: [rows, out], differentiable with respect to x. */
export function halfLinear(x: tf.Tensor2D, weight: HalfMatrix): tf.Tensor2D {
  const product = tf.customGrad((...args) => {
    const xs = args[0] as tf.Tensor2D;
    return { value: halfDot(xs, weight), gradFunc: (dy: tf.Tensor) => halfAxpy(dy as tf.Tensor2D, weight) };
  });
  return product(x) as tf.Tensor2D;
}

/** Rows of a frozen [vocab, width] table at `ids`: [ids, width]. */
export function halfEmbedding(table: HalfMatrix, ids: tf.Tensor): tf.Tensor2D {
  return halfGather(table, (ids.dtype === 'int32' ? ids : ids.cast('int32')).reshape([-1]) as tf.Tensor1D);
}
