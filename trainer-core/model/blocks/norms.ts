/** The two normalisations of the decoder blocks, over the last axis. */
import type * as tf from '@tensorflow/tfjs';
import { fusedKernels } from '../fused-kernels';

/** GPT-2's LayerNorm: centred, scaled to unit variance, then gain and bias. */
export function layerNorm(x: tf.Tensor2D, gain: tf.Tensor, bias: tf.Tensor, eps: number): tf.Tensor2D {
  const fused = fusedKernels().layerNorm;
  if (fused) return fused(x, gain, bias, eps);
  const centred = x.sub(x.mean(-1, true));
  const inverseStd = centred.square().mean(-1, true).add(eps).rsqrt();
  return centred.mul(inverseStd).mul(gain).add(bias) as tf.Tensor2D;
}

/** Qwen's and Llama's RMSNorm: x / sqrt(mean(x^2) + eps) * weight. */
export function rmsNorm<T extends tf.Tensor>(x: T, weight: tf.Tensor, eps: number): T {
  const fused = fusedKernels().rmsNorm;
  if (fused) return fused(x, weight, eps) as T;
  return x.mul(x.square().mean(-1, true).add(eps).rsqrt()).mul(weight) as T;
}
