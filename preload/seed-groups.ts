// Seed groups among the runs (runs started together that differ only by seed, tagged
// `seeds:<name>`), with the seeds still queued: pure, so the Runs view and `turnlab groups`
// gather and describe them the same way.
import type { QueuedSeedRunDto, RunDto } from './contract';
import { seedGroupOf, seedGroupTag } from './seed-list';

/** What a group needs of each of its runs (the Runs table's rows carry it). */
export type GroupMember = Pick<RunDto, 'id' | 'name' | 'seed' | 'tags' | 'status' | 'envTags' | 'bestValSuccess'>;

export interface RunGroup {
  name: string;
  /** The runs' tag, for the Runs view's tag filter. */
  tag: string;
  runs: GroupMember[];
  /** Its runs still waiting for a slot (no run row yet). */
  queued: QueuedSeedRunDto[];
  /** Its seeds the group's stop cancelled before they started. */
  cancelled: QueuedSeedRunDto[];
}

/** Every seed of the group, started, queued or cancelled, in order. */
export function seedsOf(group: RunGroup): number[] {
  return [...group.runs.map((r) => r.seed), ...group.queued.map((q) => q.seed), ...group.cancelled.map((q) => q.seed)].sort((a, b) => a - b);
}

/** The seed groups of `runs` and of the queue, each with its runs by seed, groups newest first. */
export function runGroupsOf(runs: readonly GroupMember[], queued: readonly QueuedSeedRunDto[] = []): RunGroup[] {
  const groups = new Map<string, RunGroup>();
  const groupNamed = (name: string): RunGroup => {
    const found = groups.get(name) ?? { name, tag: seedGroupTag(name), runs: [], queued: [], cancelled: [] };
    groups.set(name, found);
    return found;
  };
  for (const run of runs) {
    const name = seedGroupOf(run.tags);
    if (name !== null) groupNamed(name).runs.push(run);
  }
  for (const entry of queued) if (!entry.cancelled) groupNamed(entry.group).queued.push(entry);
  // A cancelled seed belongs to a group still listed; a group stopped before any seed started
  // (or whose runs were deleted) trained nothing, and is not one.
  for (const entry of queued) if (entry.cancelled && groups.has(entry.group)) groups.get(entry.group)!.cancelled.push(entry);
  // A group whose runs have not started yet is the newest.
  const newest = (g: RunGroup) => (g.runs.length === 0 ? Infinity : Math.max(...g.runs.map((r) => r.id)));
  const all = [...groups.values()];
  for (const g of all) g.runs.sort((a, b) => a.seed - b.seed);
  return all.sort((a, b) => newest(b) - newest(a) || a.name.localeCompare(b.name));
}

/** "2 completed, 1 running, 2 queued, 1 cancelled": how far the group is. */
export function statusLine(group: Pick<RunGroup, 'runs' | 'queued' | 'cancelled'>): string {
  const counts = new Map<string, number>();
  for (const run of group.runs) counts.set(run.status, (counts.get(run.status) ?? 0) + 1);
  if (group.queued.length > 0) counts.set('queued', (counts.get('queued') ?? 0) + group.queued.length);
  if (group.cancelled.length > 0) counts.set('cancelled', group.cancelled.length);
  return [...counts.entries()].map(([status, n]) => `${n} ${status}`).join(', ');
}

/** The mean over the group's runs of each one's best validation success; null when none validated. */
export function meanBestValSuccess(group: Pick<RunGroup, 'runs'>): number | null {
  const values = group.runs.map((r) => r.bestValSuccess).filter((v): v is number => v !== null);
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}
