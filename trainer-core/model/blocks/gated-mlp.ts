/** The gate of Qwen's and Llama's MLP: silu(gate) * up, fused where the backend has a kernel for it. */
import * as tf from '@tensorflow/tfjs';
import { fusedKernels } from '../fused-kernels';

export function swiglu(gate: tf.Tensor, up: tf.Tensor): tf.Tensor {
  const fused = fusedKernels().swiglu;
  return fused ? fused(gate, up) : gate.mul(tf.sigmoid(gate)).mul(up);
}
