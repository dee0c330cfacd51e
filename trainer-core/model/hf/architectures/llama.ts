/** Llama (and SmolLM2): biases only with `attention_bias`; Llama 3's `rope_scaling` is read by the shared config. */
import { LORA_MODULES } from '../lora';
import type { ArchitectureDescriptor } from './registry';

export const llama: ArchitectureDescriptor = {
  name: 'LlamaForCausalLM',
  blockOptions: (config) => ({ attentionBias: config.attention_bias === true, qkNorm: false }),
  loraTargets: LORA_MODULES,
};
