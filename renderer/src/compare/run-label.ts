import type { RunDto } from '../../../preload/contract';

/** How Compare names a run in legends and tables: id, name and seed. */
export function runLabel(run: RunDto): string {
  return `#${run.id} ${run.name} (seed ${run.seed})`;
}
