// The Checkpoints view's data: the run, its checkpoints, their evaluations and the run's model,
// loaded together and again whenever the trainer reports a change to this run.
import { computed, onBeforeUnmount, ref, watch } from 'vue';
import type { CheckpointDto, RunDto, RunModelDto, StoredEvaluationDto } from '../../../preload/contract';
import { api } from '../api';
import { evaluationsByCheckpoint } from '../run/evaluations';
import { headlineCharts } from '../run/headline';
import { exportUnavailable } from '../run/model-line';
import { useLiveStore } from '../stores/live';

/**
 * Metrics shown as columns: the headline ones (validation success, train success, reward, ...)
 * first, at most four, so the table and its actions fit a 1024 px window.
 */
export function checkpointMetricColumns(checkpoints: readonly CheckpointDto[]): string[] {
  const names = [...new Set(checkpoints.flatMap((c) => Object.keys(c.metrics)))].sort();
  const first = headlineCharts(names).flatMap((chart) => chart.names.slice(0, 1));
  const successes = names.filter((n) => n.endsWith('/success'));
  return [...new Set([...first, ...successes, ...names])].slice(0, 4);
}

/** Loads what the Checkpoints view of run `runId()` shows, again when the id changes or the trainer reports. */
export function useCheckpointsData(runId: () => number) {
  const live = useLiveStore();
  const run = ref<RunDto | null>(null);
  const checkpoints = ref<CheckpointDto[]>([]);
  const evaluations = ref<StoredEvaluationDto[]>([]);
  const model = ref<RunModelDto | null>(null);
  const error = ref<string | null>(null);

  async function load(): Promise<void> {
    try {
      const id = runId();
      const [nextRun, nextCheckpoints, nextEvaluations, nextModel] = await Promise.all([
        api.getRun(id),
        api.listCheckpoints(id),
        api.listEvaluations(id),
        api.runModel(id),
      ]);
      run.value = nextRun;
      model.value = nextModel;
      checkpoints.value = nextCheckpoints;
      evaluations.value = nextEvaluations;
      error.value = null;
    } catch (caught) {
      error.value = caught instanceof Error ? caught.message : String(caught);
    }
  }

  watch(
    runId,
    () => {
      model.value = null;
      void load();
    },
    { immediate: true },
  );
  const stopListening = live.on((event) => {
    if (event.type !== 'runs-changed' && event.runId === runId()) void load();
  });
  onBeforeUnmount(stopListening);

  return {
    run,
    checkpoints,
    model,
    error,
    load,
    evaluationGroups: computed(() => evaluationsByCheckpoint(evaluations.value)),
    noExport: computed(() => exportUnavailable(model.value)),
    metricColumns: computed(() => checkpointMetricColumns(checkpoints.value)),
    latestIteration: computed(() => Math.max(-1, ...checkpoints.value.map((c) => c.iteration))),
    training: computed(() => run.value !== null && ['queued', 'running', 'stopping'].includes(run.value.status)),
  };
}

export type CheckpointsData = ReturnType<typeof useCheckpointsData>;
