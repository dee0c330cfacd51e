/** Registers TurnLab's fused WebGPU kernels with tfjs and with the blocks' fused-kernel registry. */
import { registerFusedKernels } from '../fused-kernels';
import { fusedDecodeAttention, registerDecodeAttentionKernels } from './decode-attention';
import { fusedLoraLinear, registerLoraLinearKernels } from './lora-linear';
import { fusedRmsNorm, registerRmsNormKernels } from './rms-norm';
import { fusedRotate, registerRotaryKernels } from './rotary';
import { fusedSwiglu, registerSwigluKernels } from './swiglu';

export function installFusedWebgpuKernels(): void {
  registerRmsNormKernels();
  registerRotaryKernels();
  registerDecodeAttentionKernels();
  registerSwigluKernels();
  registerLoraLinearKernels();
  registerFusedKernels('webgpu', { rmsNorm: fusedRmsNorm, rotate: fusedRotate, decodeAttention: fusedDecodeAttention, swiglu: fusedSwiglu, linear: fusedLoraLinear });
}
