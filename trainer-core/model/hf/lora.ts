/**
 * LoRA settings in verl's names (`lora_rank`, `lora_alpha`, `target_modules`) and the adapter
 * initialisation PEFT uses: A uniform in +-1/sqrt(in) (kaiming-uniform with a = sqrt(5)), B zero,
 * so a fresh adapter leaves the model unchanged. The update to a linear layer is
 * `(alpha / r) * B A`; TurnLab stores A as [in, r] and B as [r, out] (y = x @ W), the transposes
 * of PEFT's lora_A [r, in] and lora_B [out, r].
 */
import { Rng, deriveSeed } from '../../rng';

export const LORA_MODULES = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type LoraModule = (typeof LORA_MODULES)[number];

export interface LoraSettings {
  rank: number;
  alpha: number;
  targetModules: LoraModule[];
  /** rsLoRA scales by alpha / sqrt(r) instead of alpha / r (PEFT's use_rslora). */
  useRslora?: boolean;
}

/** Resolves verl's target_modules: a list of module names or "all-linear". */
export function resolveTargetModules(value: string | readonly string[]): LoraModule[] {
  if (value === 'all-linear') return [...LORA_MODULES];
  const list = typeof value === 'string' ? [value] : [...value];
  for (const name of list) {
    if (!(LORA_MODULES as readonly string[]).includes(name)) {
      throw new Error(`target_modules: unknown module "${name}"; use "all-linear" or names from ${LORA_MODULES.join(', ')}`);
    }
  }
  if (list.length === 0) throw new Error('target_modules is empty; use "all-linear" or names from ' + LORA_MODULES.join(', '));
  return list as LoraModule[];
}

export function loraScale(settings: LoraSettings): number {
  return settings.useRslora ? settings.alpha / Math.sqrt(settings.rank) : settings.alpha / settings.rank;
}

/** A [in, rank] for one adapted linear layer, drawn from its own seeded stream. */
export function initialLoraA(seed: number, name: string, fanIn: number, rank: number): Float32Array {
  const rng = new Rng(deriveSeed(seed, 'lora', name));
  const bound = 1 / Math.sqrt(fanIn);
  const out = new Float32Array(fanIn * rank);
  for (let i = 0; i < out.length; i++) out[i] = (2 * rng.next() - 1) * bound;
  return out;
}
