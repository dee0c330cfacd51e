/**
 * A decoding step's linear layer in one dispatch: y = x W (+ bias) (+ scale (x A) B), where tfjs
 * takes a matmul, a bias add, and for the LoRA term two matmuls, a scale and an add. x A (rank
 * columns) is formed first by tfjs's matmul, so a LoRA layer is two dispatches in all.
 *
 * One thread per output element, reading a column of W: meant for the few rows of a decoding
 * step (at most MAX_ROWS), where the weight read dominates and adjacent threads read adjacent
 * columns. Inference only (no gradient); training keeps tfjs's tiled matmuls.
 */
import * as tf from '@tensorflow/tfjs';
import { elementwiseProgram, registerProgramKernel, runKernel } from './program';

const LINEAR = 'TurnLabLoraLinear';
export const MAX_ROWS = 64;

export function registerLoraLinearKernels(): void {
  registerProgramKernel(LINEAR, (inputs, { scale }) => {
    const { x, w, bias, xa, b } = inputs;
    const names = ['X', 'W', ...(bias ? ['Bias'] : []), ...(xa ? ['XA', 'B'] : [])];
    const program = elementwiseProgram(
      `lora_linear_${bias ? 'bias' : 'nobias'}_${xa ? 'lora' : 'base'}`,
      names,
      [x.shape[0], w.shape[1]],
      `
          let inner = uniforms.xShape.y;
          let cols = uniforms.wShape.y;
          let row = index / cols;
          let col = index - row * cols;
          var sum = 0.0;
          for (var i = 0; i < inner; i = i + 1) { sum = sum + X[row * inner + i] * W[i * cols + col]; }
          ${bias ? 'sum = sum + Bias[col];' : ''}
          ${
            xa
              ? `let rank = uniforms.xAShape.y;
          var low = 0.0;
          for (var j = 0; j < rank; j = j + 1) { low = low + XA[row * rank + j] * B[j * cols + col]; }
          sum = sum + low * uniforms.scale;`
              : ''
          }
          setOutputAtIndex(index, sum);`,
      'scale : f32,',
    );
    return { program, inputs: [x, w, ...(bias ? [bias] : []), ...(xa ? [xa, b] : [])], uniforms: [{ type: 'float32', data: [scale ?? 1] }] };
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
