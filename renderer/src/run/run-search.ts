// The Run view's metric search, kept per run: a search typed on one run must not silently hide
// another run's headline charts. The last few runs' searches survive a reload.
import { computed, type Ref, type WritableComputedRef } from 'vue';
import { persistedRef } from './persisted';

const KEEP_RUNS = 50;

const isSearches = (value: unknown): value is Array<[number, string]> =>
  Array.isArray(value) && value.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'number' && typeof e[1] === 'string');

const searches = persistedRef<Array<[number, string]>>('turnlab.run.metricSearchByRun', [], isSearches);

/** The search of run `runId`, most recently searched runs kept first. */
export function runMetricSearch(runId: Ref<number>): WritableComputedRef<string> {
  return computed({
    get: () => searches.value.find(([id]) => id === runId.value)?.[1] ?? '',
    set: (text) => {
      const others = searches.value.filter(([id]) => id !== runId.value);
      searches.value = (text === '' ? others : [[runId.value, text] as [number, string], ...others]).slice(0, KEEP_RUNS);
    },
  });
}
