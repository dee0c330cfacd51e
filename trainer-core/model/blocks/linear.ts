/**
 * Matrix products for the decoder blocks, forward and backward. On the wasm backend a matmul
 * with transposeA/transposeB (which tf's own matMul gradient uses) runs 10-25x slower than an
 * explicit transpose followed by a plain matmul, and dominated the training step; these
 * gradients therefore transpose explicitly.
 */
import * as tf from '@tensorflow/tfjs';

export function swapLast(t: tf.Tensor): tf.Tensor {
  return t.rank === 2 ? t.transpose() : t.transpose([0, 2, 1]);
}

export function matmul(a: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const product = tf.customGrad((...args) => {
    const [x, y, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    save([x, y]);
    return {
      value: tf.matMul(x as tf.Tensor3D, y as tf.Tensor3D),
      gradFunc: (dy: tf.Tensor, [xs, ys]: tf.Tensor[]) => [tf.matMul(dy as tf.Tensor3D, swapLast(ys) as tf.Tensor3D), tf.matMul(swapLast(xs) as tf.Tensor3D, dy as tf.Tensor3D)],
    };
  });
  return product(a, b);
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
        return [tf.matMul(g, saved[1].transpose()), tf.matMul(saved[0].transpose(), g), g.sum(0)];
      },
    };
  });
  return layer(x, w, bias) as tf.Tensor2D;
}
