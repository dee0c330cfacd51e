// Stop, Resume and Continue from the Run view itself. Starting a trainer takes seconds, so the
// view says what is under way; the run is fetched again when the call ends.
import { computed, ref, watch, type Ref } from 'vue';
import type { CheckpointDto, RunDto } from '../../../preload/contract';
import { api } from '../api';
import { forkTotalDefault } from '../stores/run-settings';
import type { RunProgress } from './progress';

const STARTING = 'starting a trainer process and loading the last checkpoint (model and optimiser), which takes a few seconds…';

export function useRunActions(
  runId: () => number,
  state: { run: Ref<RunDto | null>; checkpoints: Ref<CheckpointDto[]>; progress: Readonly<Ref<RunProgress | null>> },
  refresh: () => Promise<void>,
) {
  const { run, checkpoints, progress } = state;
  const actionError = ref<string | null>(null);
  const acting = ref(false);
  /** What the view says while an action's call is under way. */
  const actionNote = ref<string | null>(null);

  async function act(work: () => Promise<unknown>, note: string): Promise<void> {
    actionError.value = null;
    acting.value = true;
    actionNote.value = note;
    try {
      await work();
    } catch (caught) {
      actionError.value = caught instanceof Error ? caught.message : String(caught);
    } finally {
      acting.value = false;
      actionNote.value = null;
    }
    await refresh();
  }

  /** The total a completed run continues to from its last checkpoint (issue 21.7). */
  const continueTo = ref('');
  watch(
    () => progress.value?.total ?? null,
    (total) => {
      if (total !== null) continueTo.value = String(forkTotalDefault(total, total));
    },
    { immediate: true },
  );
  const continueProblem = computed(() => {
    const target = Number(continueTo.value);
    const done = progress.value?.iteration ?? 0;
    return Number.isInteger(target) && target > done ? null : `a whole number above ${done}`;
  });

  const ended = computed(() => run.value !== null && ['stopped', 'interrupted', 'failed'].includes(run.value.status));
  /**
   * Why an ended run has no Resume: it saved no checkpoint. Its log said so; the view says it
   * beside the button that does what Resume cannot.
   */
  const noResume = computed(() => {
    if (!ended.value || checkpoints.value.length > 0 || run.value === null) return null;
    // An interrupted run's own error says it already (markAbandonedRuns).
    if (run.value.error?.includes('saved no checkpoint')) return null;
    const when =
      run.value.iterations === null && run.value.warmStartProgress !== null
        ? 'during its warm start, which keeps a checkpoint only at its end (warm_start.save_checkpoint)'
        : 'before its first checkpoint (trainer.save_freq)';
    return `No Resume: the run ${run.value.status === 'failed' ? 'failed' : 'stopped'} ${when}, so there is nothing to resume from. New run from this config trains it again.`;
  });

  return {
    actionError,
    noResume,
    acting,
    actionNote,
    continueTo,
    continueProblem,
    canStop: computed(() => run.value !== null && (run.value.status === 'running' || run.value.status === 'queued')),
    canResume: computed(() => ended.value && checkpoints.value.length > 0),
    canContinue: computed(() => run.value?.status === 'completed' && checkpoints.value.length > 0),
    stopRun: () => act(() => api.stopRun(runId()), 'Stopping: the trainer finishes its iteration and saves a checkpoint…'),
    continueRun: () =>
      act(
        () => api.resumeRun({ runId: runId(), overrides: [`trainer.total_training_steps=${Number(continueTo.value)}`] }),
        `Continuing to ${Number(continueTo.value)} iterations: ${STARTING}`,
      ),
    resumeRun: () => act(() => api.resumeRun({ runId: runId() }), `Resuming: ${STARTING}`),
  };
}
