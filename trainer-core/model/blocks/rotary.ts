/**
 * Rotary positions in the "rotate half" layout of GPT-NeoX, Qwen and Llama: element i of a head
 * pairs with element i + headDim/2, and the pair turns by position * inverseFrequency[i].
 */
import * as tf from '@tensorflow/tfjs';
import { fusedKernels } from '../fused-kernels';

import type { Rotation } from './tensor-shapes';

export type { Rotation };

/** theta^(-2i/headDim) for i < headDim/2, computed in float64. */
export function ropeFrequencies(headDim: number, base: number): Float64Array {
  return Float64Array.from({ length: headDim / 2 }, (_, i) => Math.pow(base, (-2 * i) / headDim));
}

/** The angles position * inverseFrequency of every (row, position) as cos and sin. */
export function rotation(positions: tf.Tensor2D, inverseFrequency: ArrayLike<number>): Rotation {
  const half = inverseFrequency.length;
  const [batch, time] = positions.shape;
  const freq = tf.tensor1d(Float32Array.from(inverseFrequency)).reshape([1, 1, 1, half]);
  const angles = positions.cast('float32').reshape([batch, 1, time, 1]).mul(freq);
  return { cos: angles.cos() as tf.Tensor4D, sin: angles.sin() as tf.Tensor4D };
}

/** Rotates each (i, i + headDim/2) pair of [batch, heads, time, headDim] by its angle. */
export function rotate(x: tf.Tensor4D, rotation: Rotation): tf.Tensor4D {
  const fused = fusedKernels().rotate?.(x, rotation);
  if (fused) return fused;
  const { cos, sin } = rotation;
  const [batch, heads, time, headDim] = x.shape;
  const half = headDim / 2;
  const first = x.slice([0, 0, 0, 0], [batch, heads, time, half]);
  const second = x.slice([0, 0, 0, half], [batch, heads, time, half]);
  return tf.concat([first.mul(cos).sub(second.mul(sin)), first.mul(sin).add(second.mul(cos))], 3) as tf.Tensor4D;
}
