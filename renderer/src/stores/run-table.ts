// Searching, filtering and sorting the runs table: pure functions over the run list.
import type { RunDto } from '../../../preload/contract';
import { totalIterationsOf } from './run-settings';

export interface RunFilters {
  search: string;
  status: string;
  env: string;
  algorithm: string;
  tag: string;
}

export type SortKey = 'id' | 'name' | 'status' | 'env' | 'algorithm' | 'progress' | 'bestValSuccess' | 'createdAt';

export function emptyFilters(): RunFilters {
  return { search: '', status: '', env: '', algorithm: '', tag: '' };
}

/** Distinct values for the filter selects, sorted. */
export function filterChoices(runs: readonly RunDto[]): { status: string[]; env: string[]; algorithm: string[]; tag: string[] } {
  const sorted = (values: Iterable<string>) => [...new Set(values)].sort();
  return {
    status: sorted(runs.map((r) => r.status)),
    env: sorted(runs.flatMap((r) => r.envTags)),
    algorithm: sorted(runs.map((r) => r.algorithm)),
    tag: sorted(runs.flatMap((r) => r.tags)),
  };
}

/** The search matches id, name, tags, notes, env and algorithm, case-insensitively. */
export function matches(run: RunDto, filters: RunFilters): boolean {
  if (filters.status && run.status !== filters.status) return false;
  if (filters.env && !run.envTags.includes(filters.env)) return false;
  if (filters.algorithm && run.algorithm !== filters.algorithm) return false;
  if (filters.tag && !run.tags.includes(filters.tag)) return false;
  const needle = filters.search.trim().toLowerCase();
  if (!needle) return true;
  const haystack = [String(run.id), run.name, run.notes, run.algorithm, ...run.tags, ...run.envTags].join('\n').toLowerCase();
  return haystack.includes(needle);
}

/** Finished fraction of the planned iterations; null when either is unknown. */
export function progressOf(run: RunDto): number | null {
  const total = totalIterationsOf(run.config);
  if (total === null || total === 0 || run.iterations === null) return null;
  return Math.min(1, run.iterations / total);
}

function sortValue(run: RunDto, key: SortKey): string | number | null {
  switch (key) {
    case 'env':
      return run.envTags.join(',');
    case 'progress':
      return progressOf(run);
    default:
      return run[key];
  }
}

/** Sorted copy; unknown values (null) go last in either direction. */
export function sortRuns(runs: readonly RunDto[], key: SortKey, descending: boolean): RunDto[] {
  return [...runs].sort((a, b) => {
    const x = sortValue(a, key);
    const y = sortValue(b, key);
    if (x === null || y === null) return x === y ? a.id - b.id : x === null ? 1 : -1;
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return (descending ? -order : order) || a.id - b.id;
  });
}
