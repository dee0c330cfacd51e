// Seed groups among the runs (runs started together that differ only by seed, tagged
// `seeds:<name>`) and the form's choice of one: pure functions for the Runs view, Compare and New
// run. Gathering the groups is preload/seed-groups.ts's, shared with `turnlab groups`.
import type { RunDto } from '../../../preload/contract';
import type { RunGroup } from '../../../preload/seed-groups';
import { parseSeeds, seedGroupOf } from '../../../preload/seed-list';

/** The seed group every one of `runs` belongs to, or null when they are not one group. */
export function sharedSeedGroup(runs: readonly Pick<RunDto, 'tags'>[]): string | null {
  const names = new Set(runs.map((run) => seedGroupOf(run.tags)));
  const [only] = names;
  return names.size === 1 && only !== undefined ? only : null;
}

/**
 * Compare's address for the group (or a sweep's groups together): its runs drawn as one mean
 * line with a seed band per seed group, on a panel of validation success per env (the figure a
 * seed group is run for).
 */
export function compareQueryOf(group: Pick<RunGroup, 'runs'>): Record<string, string | string[]> {
  const envs = [...new Set(group.runs.flatMap((r) => r.envTags))];
  return { runs: group.runs.map((r) => r.id).join(','), group: '1', metric: envs.map((env) => `val/${env}/success`) };
}

/** What the New run form asks for: one run (no seeds), or a group. */
export interface SeedChoice {
  seedsText: string;
  concurrencyText: string;
}

export interface SeedRequest {
  seeds?: number[];
  concurrency?: number;
}

/** The request's seed fields, or the problem to show beside the field. */
export function readSeedChoice(choice: SeedChoice): { request: SeedRequest; problem: string | null } {
  const seedsText = choice.seedsText.trim();
  const concurrencyText = choice.concurrencyText.trim();
  if (!seedsText) {
    return { request: {}, problem: concurrencyText ? 'runs at once applies to a seed group: give seeds first' : null };
  }
  let seeds: number[];
  try {
    seeds = parseSeeds(seedsText);
  } catch (error) {
    return { request: {}, problem: (error as Error).message };
  }
  if (!concurrencyText) return { request: { seeds }, problem: null };
  if (!/^\d+$/.test(concurrencyText) || Number(concurrencyText) < 1 || Number(concurrencyText) > 64) {
    return { request: {}, problem: `runs at once is a whole number from 1 to 64, not '${concurrencyText}'` };
  }
  return { request: { seeds, concurrency: Number(concurrencyText) }, problem: null };
}

/** The seeds field's value: what to add to the start request, or why Start must wait. */
export interface SeedFieldValue {
  request: SeedRequest;
  problem: string | null;
}

export const NO_SEEDS: SeedFieldValue = { request: {}, problem: null };
