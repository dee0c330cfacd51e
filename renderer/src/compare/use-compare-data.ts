// Compare's data: the selected runs whole (configs for the settings table), their metric names,
// and each panel's series of every run in one call (thinned on the server), forks' parents
// included so a fork can draw its parent's history. Nothing here lists the whole store: at
// 10,000 runs the run picker asks the server for the runs matching its filter.
import { computed, ref, shallowRef, watch, type Ref } from 'vue';
import type { RunDto, RunSeriesDto } from '../../../preload/contract';
import { api } from '../api';
import { idsWithParents } from './lineage';
import { panelsForNames, summaryDefaults, type MetricRuns } from './panels';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `xMetric` is the metric a metric x axis reads (null for iteration and the clocks): its series
 * is fetched with the panels'.
 */
export function useCompareData(selectedIds: Ref<number[]>, panels: Ref<string[]>, setPanels: (list: string[]) => void, xMetric: Ref<string | null>) {
  const selectedRuns = ref<RunDto[]>([]);
  const unknownIds = ref<number[]>([]);
  const error = ref<string | null>(null);
  const metricNames = ref<string[]>([]);
  /** How many of the selected runs log each metric: the first panel is one most of them have. */
  const metricRuns = shallowRef<MetricRuns>(new Map());
  const summaryMetrics = ref<string[]>([]);
  /** Metric name -> its series for the selected runs and their parents; cleared when the selection changes. */
  const seriesCache = shallowRef(new Map<string, RunSeriesDto[]>());
  /** Metrics asked for and not answered yet, so panels and summary settling at once ask once. */
  const pending = new Set<string>();
  const selectionKey = computed(() => selectedRuns.value.map((r) => r.id).join(','));
  /** The series a view of `list` panels needs: theirs, the summary's and the x axis's. */
  const wanted = (list: string[]) => [...list, ...summaryMetrics.value, ...(xMetric.value ? [xMetric.value] : [])];

  async function loadRuns(): Promise<void> {
    const ids = selectedIds.value;
    // A run taken out of the selection leaves the charts now, not after the round trip.
    const kept = selectedRuns.value.filter((r) => ids.includes(r.id));
    if (kept.length !== selectedRuns.value.length) selectedRuns.value = kept;
    try {
      const found = ids.length === 0 ? [] : await api.getRuns(ids);
      if (ids.join(',') !== selectedIds.value.join(',')) return;
      selectedRuns.value = found;
      unknownIds.value = ids.filter((id) => !found.some((r) => r.id === id));
      error.value = null;
    } catch (e) {
      error.value = messageOf(e);
    }
  }

  async function loadSeries(names: string[]): Promise<void> {
    const key = selectionKey.value;
    const ids = idsWithParents(selectedRuns.value);
    const missing = [...new Set(names)].filter((n) => n && !seriesCache.value.has(n) && !pending.has(n));
    if (selectedRuns.value.length === 0 || missing.length === 0) return;
    for (const n of missing) pending.add(n);
    try {
      // One call for every missing metric of every run; the server thins long series.
      const fetched = await api.compareSeriesBatch(ids, missing);
      // The selection may have changed while waiting; keep only answers for the current one.
      if (key !== selectionKey.value) return;
      const next = new Map(seriesCache.value);
      for (const entry of fetched) next.set(entry.name, entry.series);
      seriesCache.value = next;
      error.value = null;
    } catch (e) {
      error.value = messageOf(e);
    } finally {
      for (const n of missing) pending.delete(n);
    }
  }

  watch(() => selectedIds.value.join(','), () => void loadRuns(), { immediate: true });

  watch(selectionKey, async () => {
    seriesCache.value = new Map();
    pending.clear();
    const ids = selectedRuns.value.map((r) => r.id);
    if (ids.length === 0) {
      metricNames.value = [];
      metricRuns.value = new Map();
      return;
    }
    try {
      const coverage = await api.compareMetricNames(ids);
      metricNames.value = coverage.map((m) => m.name);
      metricRuns.value = new Map(coverage.map((m) => [m.name, m.runs]));
    } catch (e) {
      error.value = messageOf(e);
      return;
    }
    const kept = panelsForNames(panels.value, metricNames.value, metricRuns.value);
    if (kept.join('\n') !== panels.value.join('\n')) setPanels(kept);
    if (summaryMetrics.value.length === 0 || !summaryMetrics.value.every((n) => metricNames.value.includes(n))) {
      summaryMetrics.value = summaryDefaults(metricNames.value, metricRuns.value);
    }
    await loadSeries(wanted(kept));
  });

  watch([panels, summaryMetrics, xMetric], () => void loadSeries(wanted(panels.value)));

  return { selectedRuns, unknownIds, error, metricNames, metricRuns, summaryMetrics, seriesCache, loadRuns };
}
