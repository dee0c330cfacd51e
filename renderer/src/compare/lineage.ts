// Fork lineage in Compare: a fork draws its parent's curve up to the fork point, so the series
// call asks for the parents too.
import type { RunDto } from '../../../preload/contract';

/** The ids a series call needs: the runs, then the parents of the forks among them, once each. */
export function idsWithParents(runs: readonly Pick<RunDto, 'id' | 'parentRunId' | 'parentIteration'>[]): number[] {
  const ids = runs.map((r) => r.id);
  for (const run of runs) if (run.parentRunId !== null && run.parentIteration !== null && !ids.includes(run.parentRunId)) ids.push(run.parentRunId);
  return ids;
}
