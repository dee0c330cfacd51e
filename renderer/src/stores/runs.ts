import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { CheckpointDto, MetricSeriesDto, RunDto, RunStatusDto } from '../../../preload/contract';
import { api } from '../api';

/** Statuses whose data still changes, so the Run view keeps polling. */
export const LIVE_STATUSES: readonly RunStatusDto[] = ['queued', 'running', 'stopping'];
export const POLL_INTERVAL_MS = 2000;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const useRunsStore = defineStore('runs', () => {
  const run = ref<RunDto | null>(null);
  const series = ref<MetricSeriesDto>({});
  const checkpoints = ref<CheckpointDto[]>([]);
  const runError = ref<string | null>(null);
  /** A fork's parent's series up to the fork point, drawn faintly under the fork's own. */
  const parent = ref<{ runId: number; series: MetricSeriesDto } | null>(null);
  let parentOf: number | null = null;

  /** Fetched once per fork (the parent's history before the fork no longer changes). */
  async function loadParent(child: RunDto, names: string[]): Promise<void> {
    if (parentOf === child.id) return;
    parentOf = child.id;
    parent.value = null;
    if (child.parentRunId === null || child.parentIteration === null) return;
    const upTo = child.parentIteration;
    const all = await api.metricSeries(child.parentRunId, names).catch(() => null);
    if (!all || parentOf !== child.id) return;
    const series = Object.fromEntries(Object.entries(all).map(([name, points]) => [name, points.filter((p) => p.iteration <= upTo)]));
    parent.value = { runId: child.parentRunId, series };
  }

  async function loadRun(runId: number): Promise<void> {
    try {
      const [nextRun, names, nextCheckpoints] = await Promise.all([
        api.getRun(runId),
        api.metricNames(runId),
        api.listCheckpoints(runId),
      ]);
      const nextSeries = await api.metricSeries(runId, names);
      run.value = nextRun;
      series.value = nextSeries;
      checkpoints.value = nextCheckpoints;
      runError.value = null;
      await loadParent(nextRun, names);
    } catch (error) {
      runError.value = messageOf(error);
    }
  }

  function clearRun(): void {
    run.value = null;
    series.value = {};
    checkpoints.value = [];
    runError.value = null;
    parent.value = null;
    parentOf = null;
  }

  return { run, series, checkpoints, runError, parent, loadRun, clearRun };
});
