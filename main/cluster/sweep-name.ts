import { sweepName, sweepOf, type GridAxis } from '../../preload/sweep-plan';
import type { Store } from '../store/db';
import { ClusterJobs } from './jobs';

/** A name no sweep of this data folder has, local (its runs' tags) or on a cluster (its jobs), started or only planned. */
export function newSweepName(store: Store, base: string, now = new Date()): string {
  const taken = [
    ...store.runs.progress().flatMap((r) => sweepOf(JSON.parse(r.tags) as string[]) ?? []),
    ...new ClusterJobs(store).list().map((j) => j.sweep),
    ...store.sweepPlans.names(),
  ];
  return sweepName(base, now, taken);
}

/**
 * Stores what a sweep will train, so its listing shows the whole grid while its groups start one
 * by one, and the settings a stop left unstarted. A plan without runs is not listed (a sweep whose
 * first trainer refused), so nothing has to be taken back when a start fails.
 */
export function recordSweepPlan(store: Store, name: string, axes: readonly GridAxis[], seeds: readonly number[], executor: 'local' | 'slurm', skipped: ReadonlyArray<{ setting: { values: readonly string[] } }>): void {
  store.sweepPlans.record({ name, axes: axes.map((a) => ({ key: a.key, values: [...a.values] })), skipped: skipped.map((s) => [...s.setting.values]), seeds: [...seeds], executor, createdAt: Date.now() });
}
