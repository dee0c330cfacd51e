/**
 * Rotary positions in one dispatch (tfjs's reference: two slices, four products, a sum, a
 * difference and a concat). The backward pass is the same kernel turning the other way.
 */
import * as tf from '@tensorflow/tfjs';
import type { Rotation } from '../blocks/rotary';
import { elementwiseProgram, registerProgramKernel, runKernel } from './program';

const ROTATE = 'TurnLabRotary';

export function registerRotaryKernels(): void {
  registerProgramKernel(ROTATE, ({ x, cos, sin }, { direction }) => {
    const program = elementwiseProgram(
      `rotary_${direction}`,
      ['X', 'Cos', 'Sin'],
      [...x.shape],
      `
          let heads = uniforms.xShape.y;
          let time = uniforms.xShape.z;
          let dim = uniforms.xShape.w;
          let half = dim / 2;
          let row = index / dim;
          let col = index - row * dim;
          let t = row % time;
          let b = row / (time * heads);
          let pair = col % half;
          let angle = (b * time + t) * half + pair;
          let c = Cos[angle];
          let s = ${direction === 1 ? '' : '-'}Sin[angle];
          let base = row * dim;
          if (col < half) {
            setOutputAtIndex(index, X[base + col] * c - X[base + col + half] * s);
          } else {
            setOutputAtIndex(index, X[base + col - half] * s + X[base + col] * c);
          }`,
    );
    return { program, inputs: [x, cos, sin] };
  });
}

/** Rotates [batch, heads, time, headDim] by angles [batch, 1, time, headDim/2]; null for broadcast angles. */
export function fusedRotate(x: tf.Tensor4D, { cos, sin }: Rotation): tf.Tensor4D | null {
  const [batch, , time, headDim] = x.shape;
  if (cos.shape[0] !== batch || cos.shape[2] !== time || cos.shape[3] * 2 !== headDim) return null;
  // The angles are captured, not inputs (they get no gradient), but saved: with gradient
  // checkpointing the tidy that made them has ended before the backward pass runs.
  const op = tf.customGrad((...args) => {
    const [xs, save] = args as [tf.Tensor4D, tf.GradSaveFunc];
    save([cos, sin]);
    return {
      value: runKernel(ROTATE, { x: xs, cos, sin }, { direction: 1 }),
      gradFunc: (dy: tf.Tensor, [savedCos, savedSin]: tf.Tensor[]) => runKernel(ROTATE, { x: dy, cos: savedCos, sin: savedSin }, { direction: -1 }),
    };
  });
  return op(x) as tf.Tensor4D;
}
