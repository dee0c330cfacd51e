// The Runs view's filters, sort and config columns live in the address
// (#/runs?status=failed&sort=name&desc=1&cols=algorithm.adv_estimator), so going back from a run
// returns to the same table, and a filtered list can be shared.
import { computed } from 'vue';
import { useRoute, useRouter, type LocationQuery } from 'vue-router';
import { RUN_COLUMN_KEY, RUN_COLUMNS_MAX, RUN_SORT_KEYS } from '../../../preload/contract';
import { emptyFilters, type RunFilters, type SortKey } from '../stores/run-table';

const FILTER_KEYS = ['search', 'status', 'env', 'algorithm', 'tag'] as const;

function text(value: LocationQuery[string]): string {
  return typeof value === 'string' ? value : '';
}

export function filtersFromQuery(query: LocationQuery): RunFilters {
  const filters = emptyFilters();
  for (const key of FILTER_KEYS) filters[key] = text(query[key]);
  return filters;
}

/** The config keys shown as columns: valid dotted keys, each once, at most RUN_COLUMNS_MAX. */
export function columnsFromQuery(query: LocationQuery): string[] {
  const keys = text(query.cols).split(',').map((key) => key.trim()).filter((key) => RUN_COLUMN_KEY.test(key));
  return [...new Set(keys)].slice(0, RUN_COLUMNS_MAX);
}

export function sortFromQuery(query: LocationQuery): { key: SortKey; descending: boolean } {
  const raw = text(query.sort);
  const shown = columnsFromQuery(query).map((column) => `config:${column}`);
  const key = (RUN_SORT_KEYS as readonly string[]).includes(raw) || shown.includes(raw) ? (raw as SortKey) : 'id';
  return { key, descending: text(query.desc) === '1' };
}

export function useRunsUrlState() {
  const route = useRoute();
  const router = useRouter();

  function setQuery(patch: Record<string, string>): void {
    const query: Record<string, string> = {};
    for (const [key, value] of Object.entries({ ...route.query, ...patch })) if (typeof value === 'string' && value !== '') query[key] = value;
    void router.replace({ path: '/runs', query });
  }

  const filters = computed(() => filtersFromQuery(route.query));
  const sort = computed(() => sortFromQuery(route.query));
  const columns = computed(() => columnsFromQuery(route.query));

  /** The config columns shown; one taken away stops being the sort. */
  function setColumns(keys: readonly string[]): void {
    const sortGone = sort.value.key.startsWith('config:') && !keys.includes(sort.value.key.slice('config:'.length));
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
