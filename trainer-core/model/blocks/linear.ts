/**
 * Matrix products for the decoder blocks, forward and backward. On the wasm backend a matmul
 * with transposeA/transposeB (which tf's own matMul gradient uses) runs 10-25x slower than an
 * explicit transpose followed by a plain matmul, and dominated the training step; these
 * gradients therefore transpose explicitly there; on WebGPU, where the matmul reads a transposed
 * operand in place and each transpose is a dispatch, they do not (`product`).
 */
import * as tf from '@tensorflow/tfjs';
import { fusedKernels } from '../fused-kernels';

export function swapLast(t: tf.Tensor): tf.Tensor {
  return t.rank === 2 ? t.transpose() : t.transpose([0, 2, 1]);
}

/**
 * Whether the backend's matmul reads a transposed operand in place (WebGPU): there an explicit
 * transpose is one more dispatch, which a small model's training step has dozens of.
 */
export function transposesInPlace(): boolean {
  return fusedKernels().transposedProducts === true;
}

/** a (or a^T) times b (or b^T) over the last two axes: transposed in place where the backend can, explicitly otherwise. */
export function product(a: tf.Tensor, b: tf.Tensor, transposeA = false, transposeB = false): tf.Tensor {
  if (transposesInPlace()) return tf.matMul(a as tf.Tensor3D, b as tf.Tensor3D, transposeA, transposeB);
  return tf.matMul((transposeA ? swapLast(a) : a) as tf.Tensor3D, (transposeB ? swapLast(b) : b) as tf.Tensor3D);
}

export function matmul(a: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const op = tf.customGrad((...args) => {
    const [x, y, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    save([x, y]);
    return {
      value: tf.matMul(x as tf.Tensor3D, y as tf.Tensor3D),
      gradFunc: (dy: tf.Tensor, [xs, ys]: tf.Tensor[]) => [product(dy, ys, false, true), product(xs, dy, true, false)],
    };
  });
  return op(a, b);
}

/** a b^T over the last two axes with its gradients, b read transposed in place (for backends where transposesInPlace()). */
export function matmulTransposed(a: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const op = tf.customGrad((...args) => {
    const [x, y, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    save([x, y]);
    return {
      value: product(x, y, false, true),
      gradFunc: (dy: tf.Tensor, [xs, ys]: tf.Tensor[]) => [product(dy, ys), product(dy, xs, true, false)],
    };
  });
  return op(a, b);
}

/**
 * x @ w with a gradient for x only. A frozen weight is captured, not an input: tfjs would
 * otherwise form its full gradient (for a tied LM head, a hidden x vocabulary matrix) on every
 * backward pass only to drop it.
 */
export function frozenMatmul(x: tf.Tensor, weight: tf.Tensor): tf.Tensor {
  const product = tf.customGrad((...args) => {
    const [xs] = args as [tf.Tensor, tf.GradSaveFunc];
    return {
      value: tf.matMul(xs as tf.Tensor2D, weight as tf.Tensor2D),
      // An explicit transpose, then a plain product: wasm's matMul with transposeB is several
      // times slower (3.4x on a [120, 151936] x [151936, 64] LM-head gradient).
      gradFunc: (dy: tf.Tensor) => tf.matMul(dy as tf.Tensor2D, weight.transpose() as tf.Tensor2D),
    };
  });
  return product(x);
}

/** x @ w + bias (then ReLU), fused in the forward pass. */
export function linear(x: tf.Tensor, w: tf.Tensor, bias: tf.Tensor, relu = false): tf.Tensor2D {
  const layer = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const [xs, ws, bs, save] = args as [tf.Tensor2D, tf.Tensor2D, tf.Tensor, tf.GradSaveFunc];
    const y = tf.fused.matMul({ a: xs, b: ws, bias: bs, activation: relu ? 'relu' : 'linear' });
    save(relu ? [xs, ws, y] : [xs, ws]);
    return {
      value: y,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const g = relu ? dy.mul(tf.step(saved[2])) : dy;
        return [product(g, saved[1], false, true), product(saved[0], g, true, false), g.sum(0)];
      },
    };
  });
  return layer(x, w, bias) as tf.Tensor2D;
}
