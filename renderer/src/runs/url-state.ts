// The Runs view's filters and sort live in the address (#/runs?status=failed&sort=name&desc=1),
// so going back from a run returns to the same table, and a filtered list can be shared.
import { computed } from 'vue';
import { useRoute, useRouter, type LocationQuery } from 'vue-router';
import { RUN_SORT_KEYS } from '../../../preload/contract';
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

export function sortFromQuery(query: LocationQuery): { key: SortKey; descending: boolean } {
  const raw = text(query.sort);
  const key = (RUN_SORT_KEYS as readonly string[]).includes(raw) ? (raw as SortKey) : 'id';
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

  function setFilter(key: keyof RunFilters, value: string): void {
    setQuery({ [key]: value });
  }

  /** A header clicked: that column ascending, or the other way if it was already the sort. */
  function sortBy(key: SortKey): void {
    const descending = sort.value.key === key ? !sort.value.descending : false;
    setQuery({ sort: key === 'id' ? '' : key, desc: descending ? '1' : '' });
  }

  return { filters, sort, setFilter, sortBy };
}
