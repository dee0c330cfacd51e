/** Qwen3: RMSNorm on each head of q and k; biases only with `attention_bias`. */
import { LORA_MODULES } from '../lora';
import type { ArchitectureDescriptor } from './registry';

export const qwen3: ArchitectureDescriptor = {
  name: 'Qwen3ForCausalLM',
  blockOptions: (config) => ({ attentionBias: config.attention_bias === true, qkNorm: true }),
  loraTargets: LORA_MODULES,
};
