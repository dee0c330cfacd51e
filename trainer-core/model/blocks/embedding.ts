/**
 * Token (and learned position) lookups whose gradient is a one-hot matmul: tf.gather's own
 * gradient needs UnsortedSegmentSum, which the wasm backend lacks.
 */
import * as tf from '@tensorflow/tfjs';
import { product } from './linear';

/**
 * One-hot rows as float32. Built as int32 and cast: the wasm kernel of tf.oneHot(..., 'float32')
 * writes integer bit patterns (tfjs 4.22), which read back as ~0.
 */
export function oneHotFloat(ids: tf.Tensor, depth: number): tf.Tensor {
  return tf.oneHot(ids, depth).cast('float32');
}

/**
 * Row lookup in a [rows, width] table. Every id is below `used` (by default the table's
 * length), so the gradient's one-hot is that wide and the rows past it get a zero gradient: a
 * 1024-position table read up to position 90 no longer pays for 1024 columns.
 */
export function embedRows(table: tf.Tensor2D, ids: tf.Tensor, used = table.shape[0]): tf.Tensor2D {
  const rows = table.shape[0];
  const lookup = tf.customGrad((...args) => {
    const t = args[0] as tf.Tensor2D;
    // Saved, not captured: the forward scope disposes everything it did not save.
    (args[1] as tf.GradSaveFunc)([ids]);
    return {
      value: tf.gather(t, ids),
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
        const grad = product(oneHotFloat(saved[0], used), dy, true, false);
        return used < rows ? tf.pad(grad, [[0, rows - used], [0, 0]]) : grad;
      },
    };
  });
  return lookup(table) as tf.Tensor2D;
}

/** Column lookup in a [width, vocab] table (a Hugging Face embedding held as its tied LM head). */
export function embedColumns(table: tf.Tensor, ids: tf.Tensor): tf.Tensor2D {
  const vocab = table.shape[1]!;
  const lookup = tf.customGrad((...args) => {
    const t = args[0] as tf.Tensor2D;
    (args[1] as tf.GradSaveFunc)([ids]);
    return {
      value: tf.gather(t, ids, 1).transpose() as tf.Tensor2D,
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => tf.matMul(dy.transpose(), oneHotFloat(saved[0], vocab)),
    };
  });
  return lookup(table) as tf.Tensor2D;
}
