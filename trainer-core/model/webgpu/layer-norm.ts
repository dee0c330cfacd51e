/**
 * GPT-2's LayerNorm in one dispatch, inference only (TurnLab's own transformer decoding on the
 * device): a workgroup per row sums the row, then the squares of the centred row, in shared
 * memory, and writes (x - mean) / sqrt(var + eps) * gain + bias. tfjs's reference
 * (blocks/norms.ts) takes about eight dispatches.
 */
import type * as tf from '@tensorflow/tfjs';
import { ROW_THREADS, TREE_SUM, groupProgram, registerProgramKernel, runKernel } from './program';

const LAYER_NORM = 'TurnLabLayerNorm';

export function registerLayerNormKernels(): void {
  registerProgramKernel(LAYER_NORM, ({ x, gain, bias }, { eps }) => {
    const [rows, n] = x.shape;
    const program = groupProgram(
      'layer_norm',
      ['X', 'Gain', 'Bias'],
      [rows, n],
      rows,
      `var<workgroup> partial : array<f32, ${ROW_THREADS}>;`,
      `
        let n = uniforms.xShape.y;
        let row = min(group, uniforms.xShape.x - 1);
        let base = row * n;
        var s = 0.0;
        for (var i = tid; i < n; i = i + ${ROW_THREADS}) { s = s + X[base + i]; }
        partial[tid] = s;
        ${TREE_SUM('partial')}
        let mean = partial[0] / f32(n);
        workgroupBarrier();
        var q = 0.0;
        for (var i = tid; i < n; i = i + ${ROW_THREADS}) { let c = X[base + i] - mean; q = q + c * c; }
        partial[tid] = q;
        ${TREE_SUM('partial')}
        let inverseStd = 1.0 / sqrt(partial[0] / f32(n) + uniforms.eps);
        if (group < uniforms.xShape.x) {
          for (var i = tid; i < n; i = i + ${ROW_THREADS}) { result[base + i] = (X[base + i] - mean) * inverseStd * Gain[i] + Bias[i]; }
        }`,
      'eps : f32,',
    );
    return { program, inputs: [x, gain, bias], uniforms: [{ type: 'float32', data: [eps] }] };
  });
}

export function fusedLayerNorm(x: tf.Tensor2D, gain: tf.Tensor, bias: tf.Tensor, eps: number): tf.Tensor2D {
  return runKernel(LAYER_NORM, { x, gain, bias }, { eps }) as tf.Tensor2D;
}
