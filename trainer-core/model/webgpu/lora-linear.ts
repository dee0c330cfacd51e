/**
 * A decoding step's linear layer in one dispatch: y = x W (+ bias) (+ scale (x A) B), where tfjs
 * takes a matmul, a bias add, and for the LoRA term two matmuls, a scale and an add. x A (rank
 * columns) is formed first by tfjs's matmul, so a LoRA layer is two dispatches in all.
 *
 * Meant for the few rows of a decoding step (at most MAX_ROWS), where reading the weight
 * dominates: adjacent threads read adjacent columns, and each thread serves a block of rows.
 * Inference only (no gradient); training keeps tfjs's tiled matmuls.
 */
import * as tf from '@tensorflow/tfjs';
import type { WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';
import { registerProgramKernel, runKernel } from './program';

const LINEAR = 'TurnLabLoraLinear';
export const MAX_ROWS = 64;
const ROWS_PER_THREAD = 8;

export function registerLoraLinearKernels(): void {
  registerProgramKernel(LINEAR, (inputs, { scale }) => {
    const { x, w, bias, xa, b } = inputs;
    const [rows] = x.shape;
    const cols = w.shape[1];
    const names = ['X', 'W', ...(bias ? ['Bias'] : []), ...(xa ? ['XA', 'B'] : [])];
    const threads = cols * Math.ceil(rows / ROWS_PER_THREAD);
    const workgroupSize: [number, number, number] = [64, 1, 1];
    // One thread per (column, block of ROWS_PER_THREAD rows): each weight element is read once
    // per block, not once per row.
    const program: WebGPUProgram = {
      shaderKey: `turnlab_lora_linear_${bias ? 'bias' : 'nobias'}_${xa ? 'lora' : 'base'}`,
      variableNames: names,
      outputShape: [rows, cols],
      dispatchLayout: { x: [0, 1] },
      dispatch: [Math.ceil(threads / workgroupSize[0]), 1, 1],
      workgroupSize,
      uniforms: 'scale : f32, threads : i32,',
      getUserCode: () => `
      fn main(index : i32) {
        if (index >= uniforms.threads) { return; }
        let inner = uniforms.xShape.y;
        let rows = uniforms.xShape.x;
        let cols = uniforms.wShape.y;
        let col = index % cols;
        let first = (index / cols) * ${ROWS_PER_THREAD};
        var sums : array<f32, ${ROWS_PER_THREAD}>;
        for (var i = 0; i < inner; i = i + 1) {
          let weight = W[i * cols + col];
          for (var r = 0; r < ${ROWS_PER_THREAD}; r = r + 1) {
            if (first + r < rows) { sums[r] = sums[r] + X[(first + r) * inner + i] * weight; }
          }
        }
        for (var r = 0; r < ${ROWS_PER_THREAD}; r = r + 1) {
          let row = first + r;
          if (row < rows) {
            var y = sums[r];
            ${bias ? 'y = y + Bias[col];' : ''}
            ${
              xa
                ? `let rank = uniforms.xAShape.y;
            var low = 0.0;
            for (var j = 0; j < rank; j = j + 1) { low = low + XA[row * rank + j] * B[j * cols + col]; }
            y = y + low * uniforms.scale;`
                : ''
            }
            result[row * cols + col] = y;
          }
        }
      }`,
    };
    return {
      program,
      inputs: [x, w, ...(bias ? [bias] : []), ...(xa ? [xa, b] : [])],
      uniforms: [
        { type: 'float32', data: [scale ?? 1] },
        { type: 'int32', data: [threads] },
      ],
    };
  });
}

/**
 * x [rows, in] @ w [in, out] (+ bias [out]) (+ scale (x a) b); null where rows exceed MAX_ROWS,
 * and for a bare product, which tfjs already does in one (tiled) dispatch.
 */
export function fusedLoraLinear(x: tf.Tensor2D, w: tf.Tensor2D, bias?: tf.Tensor, lora?: { a: tf.Tensor2D; b: tf.Tensor2D; scale: number }): tf.Tensor2D | null {
  if (x.shape[0] > MAX_ROWS || (!bias && !lora)) return null;
  const inputs: Record<string, tf.Tensor> = { x, w };
  if (bias) inputs.bias = bias;
  if (lora) {
    inputs.xa = tf.matMul(x, lora.a);
    inputs.b = lora.b;
  }
  const y = runKernel(LINEAR, inputs, { scale: lora?.scale ?? 1 }) as tf.Tensor2D;
  inputs.xa?.dispose();
  return y;
}
