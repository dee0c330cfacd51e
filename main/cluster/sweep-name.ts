import { sweepName, sweepOf } from '../../preload/sweep-plan';
import type { Store } from '../store/db';
import { ClusterJobs } from './jobs';

/** A name no sweep of this data folder has, local (its runs' tags) or on a cluster (its jobs). */
export function newSweepName(store: Store, base: string, now = new Date()): string {
  const taken = [...store.runs.progress().flatMap((r) => sweepOf(JSON.parse(r.tags) as string[]) ?? []), ...new ClusterJobs(store).list().map((j) => j.sweep)];
  return sweepName(base, now, taken);
}
