// The Runs view's filters, sort and columns live in the address (#/runs?status=failed&sort=name
// &desc=1&cols=algorithm.adv_estimator,metric:val/Bandit/success&where=algorithm.adv_estimator%3Dgrpo), so going back from a run
// returns to the same table, and a filtered list can be shared.
import { computed, watch } from 'vue';
import { useRoute, useRouter, type LocationQuery } from 'vue-router';
import { replaceQueryAt } from '../address';
import { columnSortKey, isRunColumn, RUN_COLUMNS_MAX, RUN_SORT_KEYS, sortColumn } from '../../../preload/contract';
import { emptyFilters, type RunFilters, type SortKey } from '../stores/run-table';
import { lastQuery } from '../stores/last-query';

// `newFrom` opens the New run form once: not a setting of the table to bring back.
const last = lastQuery('turnlab.runs.lastQuery', ['newFrom']);

/** The Runs table's last query, for the top "Runs" link. */
export const lastRunsQuery = last.query;

const FILTER_KEYS = ['search', 'status', 'env', 'algorithm', 'tag', 'where'] as const;

function text(value: LocationQuery[string]): string {
  return typeof value === 'string' ? value : '';
}

export function filtersFromQuery(query: LocationQuery): RunFilters {
  const filters = emptyFilters();
  for (const key of FILTER_KEYS) filters[key] = text(query[key]);
  return filters;
}

/** The columns shown (config keys, `metric:<name>`): valid ones, each once, at most RUN_COLUMNS_MAX. */
export function columnsFromQuery(query: LocationQuery): string[] {
  const keys = text(query.cols).split(',').map((key) => key.trim()).filter(isRunColumn);
  return [...new Set(keys)].slice(0, RUN_COLUMNS_MAX);
}

export function sortFromQuery(query: LocationQuery): { key: SortKey; descending: boolean } {
  const raw = text(query.sort);
  const shown: string[] = columnsFromQuery(query).map(columnSortKey);
  const key = (RUN_SORT_KEYS as readonly string[]).includes(raw) || shown.includes(raw) ? (raw as SortKey) : 'id';
  return { key, descending: text(query.desc) === '1' };
}

export function useRunsUrlState() {
  const route = useRoute();
  const router = useRouter();

  function setQuery(patch: Record<string, string>): void {
    const query: Record<string, string> = {};
    for (const [key, value] of Object.entries({ ...route.query, ...patch })) if (typeof value === 'string' && value !== '') query[key] = value;
    replaceQueryAt(router, '/runs', query);
  }

  watch(() => route.query, last.remember, { immediate: true });

  const filters = computed(() => filtersFromQuery(route.query));
  const sort = computed(() => sortFromQuery(route.query));
  const columns = computed(() => columnsFromQuery(route.query));

  /** The columns shown; one taken away stops being the sort. */
  function setColumns(keys: readonly string[]): void {
    const sortGone = sortColumn(sort.value.key) !== null && !keys.map(columnSortKey).includes(sort.value.key);
    setQuery({ cols: keys.join(','), ...(sortGone ? { sort: '', desc: '' } : {}) });
  }

  function setFilter(key: keyof RunFilters, value: string): void {
    setQuery({ [key]: value });
  }

  /** A header clicked: that column ascending, or the other way if it was already the sort. */
  function sortBy(key: SortKey): void {
    const descending = sort.value.key === key ? !sort.value.descending : false;
    setQuery({ sort: key === 'id' ? '' : key, desc: descending ? '1' : '' });
  }

  return { filters, sort, columns, setFilter, sortBy, setColumns };
}
