/** Qwen2 / Qwen2.5: q, k and v projections always carry biases. */
import { LORA_MODULES } from '../lora';
import type { ArchitectureDescriptor } from './registry';

export const qwen2: ArchitectureDescriptor = {
  name: 'Qwen2ForCausalLM',
  blockOptions: () => ({ attentionBias: true, qkNorm: false }),
  loraTargets: LORA_MODULES,
};
