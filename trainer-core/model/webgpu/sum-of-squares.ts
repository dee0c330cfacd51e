/**
 * The sum of the squares of many tensors (a gradient's global norm for clipping) in one dispatch
 * per GROUP tensors, where tfjs takes a square and a sum per tensor and an addN: a small model's
 * 54 gradients took 110 dispatches, now 9. Each dispatch is one workgroup that adds its tensors'
 * squares to the running total of the previous one (a [1] tensor), so the order of the sums is
 * fixed: deterministic.
 */
import * as tf from '@tensorflow/tfjs';
import type { WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';
import { registerProgramKernel, runKernel } from './program';

const SUM_OF_SQUARES = 'TurnLabSumOfSquares';
/** Tensors per dispatch: with the running total, 7 inputs and the output fit WebGPU's default 8 storage buffers. */
const GROUP = 6;
const THREADS = 256;

export function registerSumOfSquaresKernel(): void {
  registerProgramKernel(SUM_OF_SQUARES, (inputs) => {
    const count = Object.keys(inputs).length - 1;
    const names = Array.from({ length: count }, (_, i) => `G${i}`);
    const program: WebGPUProgram = {
      shaderKey: `turnlab_sum_of_squares_${count}`,
      variableNames: ['Total', ...names],
      outputShape: [1],
      dispatchLayout: { x: [0] },
      dispatch: [1, 1, 1],
      workgroupSize: [THREADS, 1, 1],
      getUserCode: () => `
      var<workgroup> partial : array<f32, ${THREADS}>;
      fn main(index : i32) {
        let tid = i32(localId.x);
        var s = 0.0;
        ${names.map((n) => `for (var i = tid; i < uniforms.${n.toLowerCase()}Shape; i = i + ${THREADS}) { let v = ${n}[i]; s = s + v * v; }`).join('\n        ')}
        partial[tid] = s;
        workgroupBarrier();
        for (var stride = ${THREADS / 2}; stride > 0; stride = stride / 2) {
          if (tid < stride) { partial[tid] = partial[tid] + partial[tid + stride]; }
          workgroupBarrier();
        }
        if (tid == 0) { result[0] = Total[0] + partial[0]; }
      }`,
    };
    return { program, inputs: [inputs.total, ...names.map((_, i) => inputs[`g${i}`])] };
  });
}

/** sum over every tensor of the squares of its entries, as a [1] tensor (float32 tensors only). */
export function sumOfSquares(tensors: tf.Tensor[]): tf.Tensor {
  return tf.tidy(() => {
    let total: tf.Tensor = tf.zeros([1]);
    for (let start = 0; start < tensors.length; start += GROUP) {
      const group = tensors.slice(start, start + GROUP);
      const named: Record<string, tf.Tensor> = { total };
      group.forEach((t, i) => (named[`g${i}`] = t.reshape([t.size])));
      total = runKernel(SUM_OF_SQUARES, named);
    }
    return total;
  });
}
