/**
 * LoRA settings in verl's names (`lora_rank`, `lora_alpha`, `target_modules`) and the adapter
 * initialisation PEFT uses: A uniform in +-1/sqrt(in) (kaiming-uniform with a = sqrt(5)), B zero,
 * so a fresh adapter leaves the model unchanged. The update to a linear layer is
 * `(alpha / r) * B A`; TurnLab stores A as [in, r] and B as [r, out] (y = x @ W), the transposes
 * of PEFT's lora_A [r, in] and lora_B [out, r].
 */
import type { LoraModule } from '../../config/lora-targets';
import { Rng, deriveSeed } from '../../rng';

export { LORA_MODULES, resolveTargetModules, type LoraModule } from '../../config/lora-targets';

export interface LoraSettings {
  rank: number;
  alpha: number;
  targetModules: LoraModule[];
  /** rsLoRA scales by alpha / sqrt(r) instead of alpha / r (PEFT's use_rslora). */
  useRslora?: boolean;
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
