// Seed groups: runs whose configs differ only in their seed are repeats of one experiment, and
// are drawn as one mean line with a band (the "honest seed statistics" of the workbench).
import type { SeriesPointDto } from '../../../preload/contract';
import { flattenConfig } from './config-diff';

/** Where a run config keeps its seed: TurnLab's `trainer.seed`, or a bare top-level `seed`. */
export const SEED_KEYS: readonly string[] = ['trainer.seed', 'seed'];

const DERIVED_SEED = '<follows the seed>';

/**
 * The config with its seed taken out, as a canonical string. Seeds derived from the run seed
 * (`es_manager.train.start_seed` is `${trainer.seed}` by default, resolved when stored) are
 * taken out too: a key whose name ends in `seed` and whose value equals the run's seed.
 */
export function seedFreeSignature(config: unknown): string {
  const flat = flattenConfig(config);
  const seedKey = SEED_KEYS.find((key) => Object.hasOwn(flat, key));
  const seed = seedKey === undefined ? undefined : flat[seedKey];
  const entries = Object.entries(flat)
    .filter(([key]) => !SEED_KEYS.includes(key))
    .map(([key, value]): [string, unknown] => [
      key,
      seed !== undefined && /seed$/i.test(key) && value === seed ? DERIVED_SEED : value,
    ])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}

export interface SeedGroup {
  /** The seed-free config signature the members share. */
  key: string;
  /** Members in the order the runs were given. */
  runIds: number[];
}

/** Groups runs by seed-free config, groups in order of their first member. */
export function groupBySeed(runs: ReadonlyArray<{ id: number; config: unknown }>): SeedGroup[] {
  const groups = new Map<string, SeedGroup>();
  for (const run of runs) {
    const key = seedFreeSignature(run.config);
    const group = groups.get(key);
    if (group) group.runIds.push(run.id);
    else groups.set(key, { key, runIds: [run.id] });
  }
  return [...groups.values()];
}

export type BandMode = 'std' | 'minmax';

export interface BandPoint {
  iteration: number;
  /** The mean of the members' x values (iteration, or time) at this iteration. */
  x: number;
  /** null when no member has a finite value at this iteration. */
  mean: number | null;
  lower: number | null;
  upper: number | null;
  /** Members with a finite value at this iteration. */
  n: number;
}

/**
 * Aligns member series on the iteration and reduces each iteration to mean and band: mean ± the
 * sample standard deviation (n - 1; zero width for a single value), or min to max. An iteration
 * only some members reached counts only those, and says so in `n`; a point whose x is NaN
 * counts nowhere.
 */
export function aggregateBand(
  members: ReadonlyArray<ReadonlyArray<SeriesPointDto>>,
  xOf: (point: SeriesPointDto, memberIndex: number) => number,
  mode: BandMode,
): BandPoint[] {
  const byIteration = new Map<number, { xs: number[]; values: number[] }>();
  members.forEach((points, memberIndex) => {
    for (const point of points) {
      const x = xOf(point, memberIndex);
      // A metric x axis has no x where the member never logged that metric: the point sits out.
      if (Number.isNaN(x)) continue;
      let slot = byIteration.get(point.iteration);
      if (!slot) byIteration.set(point.iteration, (slot = { xs: [], values: [] }));
      slot.xs.push(x);
      if (point.value !== null && Number.isFinite(point.value)) slot.values.push(point.value);
    }
  });
  return [...byIteration.entries()]
    .sort(([a], [b]) => a - b)
    .map(([iteration, { xs, values }]) => {
      const x = xs.reduce((s, v) => s + v, 0) / xs.length;
      const n = values.length;
      if (n === 0) return { iteration, x, mean: null, lower: null, upper: null, n };
      const mean = values.reduce((s, v) => s + v, 0) / n;
      if (mode === 'minmax') return { iteration, x, mean, lower: Math.min(...values), upper: Math.max(...values), n };
      const std = n > 1 ? Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1)) : 0;
      return { iteration, x, mean, lower: mean - std, upper: mean + std, n };
    });
}
