// The linear layers LoRA may adapt, in PEFT's names, and verl's `target_modules` setting. Here,
// not in model/hf/, because the config schema checks the setting before any model is built.

export const LORA_MODULES = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type LoraModule = (typeof LORA_MODULES)[number];

/**
 * Resolves verl's target_modules: a list of module names or "all-linear", which means
 * `allLinear` (an architecture's descriptor gives its own; by default every linear layer).
 */
export function resolveTargetModules(value: string | readonly string[], allLinear: readonly LoraModule[] = LORA_MODULES): LoraModule[] {
  if (value === 'all-linear') return [...allLinear];
  const list = typeof value === 'string' ? [value] : [...value];
  for (const name of list) {
    if (!(LORA_MODULES as readonly string[]).includes(name)) {
      throw new Error(`target_modules: unknown module "${name}"; use "all-linear" or names from ${LORA_MODULES.join(', ')}`);
    }
  }
  if (list.length === 0) throw new Error('target_modules is empty; use "all-linear" or names from ' + LORA_MODULES.join(', '));
  return list as LoraModule[];
}

