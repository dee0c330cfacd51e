// Sweeps: a grid of config settings crossed with seeds. Pure, so the CLI and the New run form
// expand a sweep the same way: one seed group per combination of settings, named by the
// settings that differ, and one run per seed in it.
import { freshGroupName, seedGroupTag, seedRunName } from './seed-list';

export interface GridAxis {
  key: string;
  values: string[];
}

/** Most runs one sweep may hold, as MAX_GROUP_SEEDS for one group: a typo should not queue thousands. */
export const MAX_SWEEP_RUNS = 256;

/**
 * How a refusal names a grid line: the command line's flag, or the New run form's grid field
 * (whose lines carry no flag).
 */
export type GridWords = 'flag' | 'form';

const lineWord = (words: GridWords, text: string) => (words === 'flag' ? `--grid '${text}'` : `the grid line '${text}'`);

/** `key=v1,v2`; throws a message that names the line as the user wrote it (GridWords). */
export function parseGridAxis(text: string, words: GridWords = 'flag'): GridAxis {
  const eq = text.indexOf('=');
  const key = eq < 0 ? '' : text.slice(0, eq).trim();
  const example = `${words === 'flag' ? '--grid ' : ''}actor_rollout_ref.actor.optim.lr=1e-3,3e-4`;
  if (!/^[A-Za-z_][\w.]*$/.test(key)) throw new Error(`${lineWord(words, text)} is not key=value1,value2 (e.g. ${example})`);
  const values = text.slice(eq + 1).split(',').map((v) => v.trim());
  if (values.some((v) => v === '')) throw new Error(`${lineWord(words, text)} has an empty value; separate values by single commas`);
  if (new Set(values).size !== values.length) throw new Error(`${lineWord(words, text)} names a value twice`);
  return { key, values };
}

export interface SweepSetting {
  /** `--set` overrides of this combination, in the order of the axes. */
  overrides: string[];
  /** Its value on each axis, in the order of the axes. */
  values: string[];
  /** The settings that differ between combinations, e.g. `lr=0.001,steps=4` (empty for one combination). */
  label: string;
}

/** The last part of a dotted key: short enough for a run name, as a reader would say it. */
function shortKey(key: string, axes: readonly GridAxis[]): string {
  const last = key.split('.').pop()!;
  return axes.filter((a) => a.key.split('.').pop() === last).length > 1 ? key : last;
}

export function expandGrid(axes: readonly GridAxis[], words: GridWords = 'flag'): SweepSetting[] {
  const keys = axes.map((a) => a.key);
  const twice = keys.find((k, i) => keys.indexOf(k) !== i);
  if (twice) {
    throw new Error(words === 'flag' ? `--grid names ${twice} twice; give all its values in one --grid ${twice}=a,b` : `the grid names ${twice} on two lines; put all its values on one line (${twice}=value1,value2)`);
  }
  let combos: string[][] = [[]];
  for (const axis of axes) combos = combos.flatMap((c) => axis.values.map((v) => [...c, v]));
  return combos.map((values) => ({
    overrides: values.map((v, i) => `${axes[i].key}=${v}`),
    values,
    label: values
      .map((v, i) => (axes[i].values.length > 1 ? `${shortKey(axes[i].key, axes)}=${v}` : null))
      .filter((part): part is string => part !== null)
      .join(','),
  }));
}

/** A combination of the grid no run's config accepts, and why (the config's own words). */
export interface SkippedSetting {
  setting: SweepSetting;
  reason: string;
}

/** A combination's values by its axes' last key parts: `lr=0.001 gamma=0.9`. */
export function valuesLabel(axes: readonly GridAxis[], values: readonly string[]): string {
  return axes.map((a, i) => `${a.key.split('.').pop()}=${values[i]}`).join(' ');
}

/** `adv_estimator=grpo bi_level_gae=true: why`, a left-out combination as a line says it. */
export function skippedLine(axes: readonly GridAxis[], skipped: SkippedSetting): string {
  return `${valuesLabel(axes, skipped.setting.values)}: ${skipped.reason}`;
}

export interface SweepRunPlan {
  seedGroup: string;
  name: string;
  seed: number;
  /** The combination's overrides followed by the seed's. */
  overrides: string[];
  tag: string;
}

export interface SweepPlan {
  groups: Array<{ name: string; label: string; overrides: string[] }>;
  runs: SweepRunPlan[];
}

/** Every run of the sweep, a seed group for each setting (expandGrid's, less any left out); group names avoid those already taken (`base#2`...). */
export function planSweep(base: string, settings: readonly SweepSetting[], seeds: readonly number[], takenGroups: Iterable<string>): SweepPlan {
  if (settings.length * seeds.length > MAX_SWEEP_RUNS) {
    throw new Error(`the sweep has ${settings.length} settings x ${seeds.length} seeds = ${settings.length * seeds.length} runs; at most ${MAX_SWEEP_RUNS}`);
  }
  const taken = new Set(takenGroups);
  const groups = settings.map((setting) => {
    const name = freshGroupName(setting.label ? `${base}-${setting.label}` : base, taken);
    taken.add(name);
    return { name, label: setting.label, overrides: setting.overrides };
  });
  const runs = groups.flatMap((group) =>
    seeds.map((seed) => ({
      seedGroup: group.name,
      name: seedRunName(group.name, seed),
      seed,
      overrides: [...group.overrides, `trainer.seed=${seed}`],
      tag: seedGroupTag(group.name),
    })),
  );
  return { groups, runs };
}

/** Runs of one sweep carry this tag, followed by the sweep's name, beside their seed group's tag. */
export const SWEEP_TAG_PREFIX = 'sweep:';

export function sweepTag(sweep: string): string {
  return `${SWEEP_TAG_PREFIX}${sweep}`;
}

/** The sweep a run's tags place it in, or null. */
export function sweepOf(tags: readonly string[]): string | null {
  const tag = tags.find((t) => t.startsWith(SWEEP_TAG_PREFIX));
  return tag === undefined ? null : tag.slice(SWEEP_TAG_PREFIX.length);
}

/**
 * A sweep's name: its base and when it started (`lr-20261130-192600`), so that the same grid
 * swept twice gives two sweeps; `.2` when one of that name exists already (the same second). A folder name as well: a Slurm
 * sweep's bundles lie in a folder of that name.
 */
export function sweepName(base: string, startedAt: Date, taken: Iterable<string>): string {
  const stamp = startedAt.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const name = `${folderName(base)}-${stamp}`;
  const used = new Set(taken);
  let n = 1;
  while (used.has(n === 1 ? name : `${name}.${n}`)) n += 1;
  return n === 1 ? name : `${name}.${n}`;
}

/** A run name as a folder name on any filesystem. */
export function folderName(name: string): string {
  return name.replace(/[^A-Za-z0-9._=+-]/g, '_');
}

/**
 * sbatch's --time forms: minutes, minutes:seconds, hours:minutes:seconds, days-hours,
 * days-hours:minutes, days-hours:minutes:seconds (and UNLIMITED).
 */
const SLURM_TIME = /^(\d+(:\d{1,2}){0,2}|\d+-\d{1,2}(:\d{1,2}){0,2}|UNLIMITED|INFINITE)$/i;

/** Why sbatch would refuse this time limit, or null; the form and the batch script both ask. */
export function slurmTimeProblem(time: string): string | null {
  return SLURM_TIME.test(time) ? null : `time limit '${time}' is not one sbatch reads: minutes (90), hours:minutes:seconds (01:30:00) or days-hours:minutes (1-12:00)`;
}
