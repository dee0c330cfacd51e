// The Runs table's filters and sort as the reader sets them; the server applies them
// (TurnLabApi.runPage), so a store of 10,000 runs never travels whole.
import type { RunDto, RunPageQueryDto, RunSortKeyDto } from '../../../preload/contract';
import { parseRunConditions } from '../../../preload/run-conditions';
import { totalIterationsOf } from './run-settings';
import { warmingUp } from '../run/progress';

export interface RunFilters {
  search: string;
  status: string;
  env: string;
  algorithm: string;
  tag: string;
  /** Conditions on config keys and metrics as typed (`metric:val/Bandit/success>0.5 and ...`). */
  where: string;
}

export type SortKey = RunSortKeyDto;

export function emptyFilters(): RunFilters {
  return { search: '', status: '', env: '', algorithm: '', tag: '', where: '' };
}

/** The page request for these filters, sort and config columns: empty filters left out. */
export function pageQueryOf(filters: RunFilters, sort: SortKey, descending: boolean, columns: readonly string[] = []): RunPageQueryDto {
  const query: RunPageQueryDto = { sort, descending, ...(columns.length > 0 ? { columns: [...columns] } : {}) };
  for (const key of ['search', 'status', 'env', 'algorithm', 'tag'] as const) {
    const value = key === 'search' ? filters.search.trim() : filters[key];
    if (value) query[key] = value;
  }
  // Conditions that do not read are left out; whereProblem says why beside the field.
  if (whereProblem(filters.where) === null) {
    const where = parseRunConditions(filters.where);
    if (where.length > 0) query.where = where;
  }
  return query;
}

/** What is wrong with the conditions as typed; null when they read (or are empty). */
export function whereProblem(text: string): string | null {
  try {
    parseRunConditions(text);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Finished fraction of the planned iterations; null when either is unknown. */
export function progressOf(run: Pick<RunDto, 'status' | 'config' | 'iterations' | 'warmStartProgress'>): number | null {
  const warm = warmingUp(run);
  if (warm) return Math.min(1, warm.step / Math.max(1, warm.steps));
  const total = totalIterationsOf(run.config);
  if (total === null || total === 0 || run.iterations === null) return null;
  return Math.min(1, run.iterations / total);
}
