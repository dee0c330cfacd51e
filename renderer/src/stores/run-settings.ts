// The common run settings the forms edit, and how they become `--set` overrides. The trainer
// validates every value (trainer-core/config/schema.ts); the selects offer the names the trainer's
// own modules define (trainer-core/shared-names.ts, through the contract).
import { BACKEND_NAMES, ESTIMATOR_NAMES } from '../../../preload/contract';

export const BACKEND_CHOICES = BACKEND_NAMES;
export const ESTIMATOR_CHOICES = ESTIMATOR_NAMES;

/** Each field as text: '' leaves the config's value as it is. */
export interface RunSettings {
  totalIterations: string;
  seed: string;
  backend: string;
  learningRate: string;
  estimator: string;
  /** More `key=value` overrides, one a line. */
  extra: string;
}

/** The config key each field sets. */
export const SETTING_KEYS: Record<Exclude<keyof RunSettings, 'extra'>, string> = {
  totalIterations: 'trainer.total_training_steps',
  seed: 'trainer.seed',
  backend: 'trainer.backend',
  learningRate: 'actor_rollout_ref.actor.optim.lr',
  estimator: 'algorithm.adv_estimator',
};

export function emptySettings(): RunSettings {
  return { totalIterations: '', seed: '', backend: '', learningRate: '', estimator: '', extra: '' };
}

/** The value at a dotted path of a config object; undefined when absent. */
export function at(config: unknown, path: string): unknown {
  let node = config;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The settings as a resolved (or file) config has them. */
export function settingsFromConfig(config: unknown): RunSettings {
  const settings = emptySettings();
  for (const [field, key] of Object.entries(SETTING_KEYS) as Array<[keyof typeof SETTING_KEYS, string]>) {
    const value = at(config, key);
    if (typeof value === 'number' || typeof value === 'string') settings[field] = String(value);
  }
  return settings;
}

/** One problem per line that is not `key=value`, as "line N: ..."; empty when all are fine. */
/**
 * What is wrong with each field, checked as the user types (empty fields keep the config's
 * value and are fine); the trainer still validates the whole config when it starts.
 */
export function fieldProblems(settings: RunSettings): Partial<Record<keyof RunSettings, string>> {
  const problems: Partial<Record<keyof RunSettings, string>> = {};
  const whole = (text: string, min: number) => /^\d+$/.test(text) && Number(text) >= min;
  const total = settings.totalIterations.trim();
  if (total !== '' && !whole(total, 1)) problems.totalIterations = 'a whole number of iterations, 1 or more';
  const seed = settings.seed.trim();
  if (seed !== '' && !whole(seed, 0)) problems.seed = 'a whole number, 0 or more';
  const lr = settings.learningRate.trim();
  if (lr !== '' && !(Number.isFinite(Number(lr)) && Number(lr) > 0)) problems.learningRate = 'a positive number, e.g. 1e-4';
  const extra = extraProblems(settings.extra);
  if (extra.length > 0) problems.extra = extra.join('; ');
  return problems;
}

export function extraProblems(extra: string): string[] {
  return extra
    .split('\n')
    .map((line, index) => ({ line: line.trim(), index }))
    .filter(({ line }) => line !== '' && !/^[^=\s]+=/.test(line))
    .map(({ line, index }) => `line ${index + 1}: '${line}' is not key=value`);
}

/**
 * Overrides for the fields that differ from `base` (all non-empty fields when no base), then
 * the extra lines, which win because they come last.
 */
export function settingsToOverrides(settings: RunSettings, base?: RunSettings): string[] {
  const overrides: string[] = [];
  for (const [field, key] of Object.entries(SETTING_KEYS) as Array<[keyof typeof SETTING_KEYS, string]>) {
    const value = settings[field].trim();
    if (value === '' || (base && base[field].trim() === value)) continue;
    overrides.push(`${key}=${value}`);
  }
  for (const line of settings.extra.split('\n')) if (line.trim() !== '') overrides.push(line.trim());
  return overrides;
}

/**
 * A fork's overrides: the settings changed from the run's, and always its total. A fork starts
 * from the checkpoint's config, whose total is where the run stood then (12), not the run's
 * total now (20) that the form shows: left out as unchanged, the fork would train nothing.
 */
export function forkOverrides(settings: RunSettings, base: RunSettings): string[] {
  return settingsToOverrides(settings, { ...base, totalIterations: '' });
}

/** `trainer.total_training_steps` of a run's config, for its progress; null when absent. */
export function totalIterationsOf(config: unknown): number | null {
  const value = at(config, SETTING_KEYS.totalIterations);
  return typeof value === 'number' ? value : null;
}

const OPTIM = 'actor_rollout_ref.actor.optim';

/**
 * The schedule the learning-rate field feeds, from the config's optimiser settings: "cosine
 * from 0.001 down to 0.0002 at the last iteration, after a warm-up over the first 10%".
 */
export function lrScheduleText(config: unknown, lrText: string): string {
  const lr = Number(lrText.trim() || at(config, `${OPTIM}.lr`));
  if (!Number.isFinite(lr) || lr <= 0) return '';
  const kind = at(config, `${OPTIM}.lr_scheduler_type`) ?? 'constant';
  const warmup = Number(at(config, `${OPTIM}.lr_warmup_steps_ratio`) ?? 0);
  const floorRatio = Number(at(config, `${OPTIM}.min_lr_ratio`) ?? 0);
  const fmt = (value: number) => String(Number(value.toPrecision(3)));
  const shape = kind === 'cosine' ? `cosine from ${fmt(lr)} down to ${fmt(lr * floorRatio)} at the last iteration` : `constant ${fmt(lr)}`;
  return warmup > 0 ? `${shape}, after a linear warm-up over the first ${fmt(warmup * 100)}%` : `${shape}, no warm-up`;
}

/**
 * A fork's total iterations: the parent's when it lies ahead of the checkpoint, else the
 * checkpoint's iteration plus half the parent's plan (at least 10), so a fork always trains.
 */
export function forkTotalDefault(parentTotal: number | null, iteration: number): number {
  if (parentTotal !== null && parentTotal > iteration) return parentTotal;
  return iteration + Math.max(10, Math.round((parentTotal ?? 0) / 2));
}
