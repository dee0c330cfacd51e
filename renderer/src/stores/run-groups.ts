// Seed groups among the runs (runs started together that differ only by seed, tagged
// `seeds:<name>`) and the form's choice of one: pure functions for the Runs view and New run.
import type { QueuedSeedRunDto, RunDto } from '../../../preload/contract';
import { parseSeeds, seedGroupOf, seedGroupTag } from '../../../preload/seed-list';

/** What a group needs of each of its runs (the Runs table's rows carry it). */
export type GroupMember = Pick<RunDto, 'id' | 'name' | 'seed' | 'tags' | 'status' | 'envTags' | 'bestValSuccess'>;

export interface RunGroup {
  name: string;
  /** The runs' tag, for the Runs view's tag filter. */
  tag: string;
  runs: GroupMember[];
  /** Its runs still waiting for a slot (no run row yet). */
  queued: QueuedSeedRunDto[];
}

/** Every seed of the group, started or queued, in order. */
export function seedsOf(group: RunGroup): number[] {
  return [...group.runs.map((r) => r.seed), ...group.queued.map((q) => q.seed)].sort((a, b) => a - b);
}

/** The seed groups of `runs` and of the queue, each with its runs by seed, groups newest first. */
export function runGroupsOf(runs: readonly GroupMember[], queued: readonly QueuedSeedRunDto[] = []): RunGroup[] {
  const groups = new Map<string, RunGroup>();
  const groupNamed = (name: string): RunGroup => {
    const found = groups.get(name) ?? { name, tag: seedGroupTag(name), runs: [], queued: [] };
    groups.set(name, found);
    return found;
  };
  for (const run of runs) {
    const name = seedGroupOf(run.tags);
    if (name !== null) groupNamed(name).runs.push(run);
  }
  for (const entry of queued) groupNamed(entry.group).queued.push(entry);
  // A group whose runs have not started yet is the newest.
  const newest = (g: RunGroup) => (g.runs.length === 0 ? Infinity : Math.max(...g.runs.map((r) => r.id)));
  const all = [...groups.values()];
  for (const g of all) g.runs.sort((a, b) => a.seed - b.seed);
  return all.sort((a, b) => newest(b) - newest(a) || a.name.localeCompare(b.name));
}

/** The seed group every one of `runs` belongs to, or null when they are not one group. */
export function sharedSeedGroup(runs: readonly Pick<RunDto, 'tags'>[]): string | null {
  const names = new Set(runs.map((run) => seedGroupOf(run.tags)));
  const [only] = names;
  return names.size === 1 && only !== undefined ? only : null;
}

/** "2 completed, 1 running, 2 queued": how far the group is. */
export function statusLine(group: RunGroup): string {
  const counts = new Map<string, number>();
  for (const run of group.runs) counts.set(run.status, (counts.get(run.status) ?? 0) + 1);
  if (group.queued.length > 0) counts.set('queued', (counts.get('queued') ?? 0) + group.queued.length);
  return [...counts.entries()].map(([status, n]) => `${n} ${status}`).join(', ');
}

/**
 * Compare's address for the group: its runs drawn as one mean line with a seed band, on a panel
 * of validation success per env (the figure a seed group is run for).
 */
export function compareQueryOf(group: RunGroup): Record<string, string | string[]> {
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
