// The pretrained model folder of a new run (verl's actor_rollout_ref.model keys), as the New run
// form edits it. The server opens the folder to check it (checkRunConfig), as the trainer will.
import { at } from './run-settings';

/** Each field as text: '' leaves the config's value as it is. */
export interface ModelSettings {
  path: string;
  loraRank: string;
  loraAlpha: string;
}

export const MODEL_KEYS: Record<keyof ModelSettings, string> = {
  path: 'actor_rollout_ref.model.path',
  loraRank: 'actor_rollout_ref.model.lora_rank',
  loraAlpha: 'actor_rollout_ref.model.lora_alpha',
};

export function modelFromConfig(config: unknown): ModelSettings {
  const text = (key: string) => {
    const value = at(config, key);
    return typeof value === 'number' || typeof value === 'string' ? String(value) : '';
  };
  return { path: text(MODEL_KEYS.path), loraRank: text(MODEL_KEYS.loraRank), loraAlpha: text(MODEL_KEYS.loraAlpha) };
}

/** Overrides for the fields that differ from `base`. */
export function modelOverrides(model: ModelSettings, base: ModelSettings): string[] {
  return (Object.keys(MODEL_KEYS) as Array<keyof ModelSettings>)
    .filter((field) => model[field].trim() !== '' && model[field].trim() !== base[field].trim())
    .map((field) => `${MODEL_KEYS[field]}=${model[field].trim()}`);
}
