// Compare's state in the address: the runs, the panels and every plot setting, read from the
// route and written back with router.replace, so a comparison is a link (see url-state.ts).
import { computed, watch } from 'vue';
import { useRoute, useRouter } from 'vue-router';
import { replaceQueryAt } from '../address';
import { panelsFromQuery } from './panels';
import { rememberCompareQuery, settingsFromQuery, settingToQuery, type CompareSettings } from './url-state';

export function parseRunIds(raw: unknown): number[] {
  const text = Array.isArray(raw) ? raw.join(',') : typeof raw === 'string' ? raw : '';
  return [...new Set(text.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0))];
}

export function useCompareAddress() {
  const route = useRoute();
  const router = useRouter();

  function setQuery(patch: Record<string, string | string[] | undefined>): void {
    const query = { ...route.query, ...patch };
    for (const key of Object.keys(query)) {
      const value = query[key];
      if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) delete query[key];
    }
    replaceQueryAt(router, '/compare', query);
  }

  const settings = computed(() => settingsFromQuery(route.query));
  function settingRef<K extends keyof CompareSettings>(key: K) {
    return computed<CompareSettings[K]>({
      get: () => settings.value[key],
      set: (value) => setQuery(settingToQuery(key, value)),
    });
  }

  const selectedIds = computed(() => parseRunIds(route.query.runs));
  /** The metric of each panel, in order. */
  const panels = computed(() => panelsFromQuery(route.query));

  function setPanels(list: string[]): void {
    setQuery({ metric: list });
  }

  function toggleRun(id: number): void {
    const ids = selectedIds.value.includes(id) ? selectedIds.value.filter((x) => x !== id) : [...selectedIds.value, id];
    setQuery({ runs: ids.join(',') });
  }

  watch(() => route.query, rememberCompareQuery, { immediate: true });

  return {
    selectedIds,
    panels,
    setPanels,
    toggleRun,
    smoothing: settingRef('smoothing'),
    xAxis: settingRef('xAxis'),
    logScale: settingRef('logScale'),
    logX: settingRef('logX'),
    groupSeeds: settingRef('groupSeeds'),
    groupBy: settingRef('groupBy'),
    bandMode: settingRef('bandMode'),
    showMembers: settingRef('showMembers'),
  };
}
