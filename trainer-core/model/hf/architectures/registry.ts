/**
 * Hugging Face architectures TurnLab can run, by the name config.json's `architectures` gives.
 * Every registered architecture is the Llama-family block (RMSNorm, rotary positions,
 * grouped-query attention, SwiGLU) with the Llama weight names (`model.layers.N.self_attn.q_proj`,
 * ...); a descriptor says which of the block's options its config turns on and what LoRA's
 * "all-linear" adapts. Adding one is a descriptor module and a line in ./index.ts.
 */
import type { LoraModule } from '../lora';

/** The options of the shared decoder block an architecture's config.json turns on. */
export interface BlockOptions {
  /** Biases on q, k and v projections. */
  attentionBias: boolean;
  /** RMSNorm over each head of q and k before the rotation. */
  qkNorm: boolean;
}

export interface ArchitectureDescriptor {
  /** The `architectures` entry of config.json, e.g. "Qwen2ForCausalLM". */
  name: string;
  /** The config keys this architecture reads beyond the shared ones, turned into block options. */
  blockOptions(config: Record<string, unknown>): BlockOptions;
  /** The linear layers "all-linear" adapts, in Llama's module names. */
  loraTargets: readonly LoraModule[];
}

const registry = new Map<string, ArchitectureDescriptor>();

/** Registers an architecture; registering a name twice is a mistake and throws. */
export function registerArchitecture(descriptor: ArchitectureDescriptor): void {
  if (registry.has(descriptor.name)) throw new Error(`Architecture ${descriptor.name} is already registered`);
  registry.set(descriptor.name, descriptor);
}

export function findArchitecture(name: string): ArchitectureDescriptor | undefined {
  return registry.get(name);
}

/** Names of every registered architecture, in registration order. */
export function registeredArchitectures(): string[] {
  return [...registry.keys()];
}
