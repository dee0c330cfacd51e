// What the Checkpoints view's buttons do: resume (asking first where it drops logged work or
// needs a new total), fork, evaluate, export, save and delete. One action runs at a time; each
// reloads the view's data when it ends. The row buttons reach these through inject, so the
// table's components need no chain of events back to the view.
import { computed, inject, provide, reactive, ref, watch, type InjectionKey } from 'vue';
import { useRouter } from 'vue-router';
import type { BackendAvailabilityDto, CheckpointDto, ModelExportDto } from '../../../preload/contract';
import { api } from '../api';
import { extraProblems, forkOverrides, forkTotalDefault, totalIterationsOf, type RunSettings } from '../stores/run-settings';
import { download, isDesktop, serverUrl } from '../stores/transport';
import { showTransient } from '../stores/transient';
import type { CheckpointsData } from './data';

/** What the fork panel hands over when its Start button is pressed. */
export interface ForkRequest {
  settings: RunSettings;
  base: RunSettings;
  name: string;
}

const ACTIONS: InjectionKey<CheckpointActions> = Symbol('checkpoint-actions');

const STARTING = 'starting a trainer process and loading the checkpoint (model and optimiser), which takes a few seconds; the run opens when it has started…';

export function useCheckpointActions(runId: () => number, data: CheckpointsData) {
  const router = useRouter();
  const { run, error, load } = data;
  const message = ref<string | null>(null);
  const busy = ref<string | null>(null);
  const confirming = ref<{ id: number; action: 'delete' | 'resume' | 'continue' } | null>(null);
  /** The total a run resumed at or past its planned end trains on to. */
  const continueTo = ref('');
  const episodes = ref('');
  const forking = ref<CheckpointDto | null>(null);
  const exporting = ref<CheckpointDto | null>(null);
  /** The backend probe's answer, asked for when a fork form first opens; undefined until then. */
  const backends = ref<BackendAvailabilityDto[] | undefined>(undefined);

  /** Resume and fork start a trainer process before they answer: say so while the buttons wait. */
  const busyNote = computed(() => {
    if (busy.value === 'resume') return `Resuming: ${STARTING}`;
    if (busy.value === 'fork') return `Forking into a new run: ${STARTING}`;
    return null;
  });

  async function act(label: string, work: () => Promise<void>): Promise<void> {
    busy.value = label;
    error.value = null;
    message.value = null;
    let failed: string | null = null;
    try {
      await work();
    } catch (caught) {
      failed = caught instanceof Error ? caught.message : String(caught);
    } finally {
      busy.value = null;
    }
    await load();
    // The reload clears the view's error when it succeeds: the action's refusal is what to show.
    if (failed !== null) error.value = failed;
  }

  function askResume(checkpoint: CheckpointDto): void {
    const planned = totalIterationsOf(run.value?.config);
    if (checkpoint.warmStartStep !== null) {
      // The run's one checkpoint: its warm start goes on, whatever the total (a warm start alone trains none).
      void resume(checkpoint);
    } else if (planned !== null && checkpoint.iteration >= planned) {
      // The run's plan ends here (a completed run): resuming needs a larger total to train on to.
      continueTo.value = String(forkTotalDefault(planned, checkpoint.iteration));
      confirming.value = { id: checkpoint.id, action: 'continue' };
    } else if (checkpoint.iteration < data.latestIteration.value) {
      // Resuming an earlier checkpoint drops what the run logged after it: ask first.
      confirming.value = { id: checkpoint.id, action: 'resume' };
    } else {
      void resume(checkpoint);
    }
  }

  /** Resuming an earlier checkpoint deletes what came after: the question says what, as the CLI's refusal does. */
  function resumeQuestion(checkpoint: CheckpointDto): string {
    const at = checkpoint.iteration;
    const last = Math.max(run.value?.iterations ?? at, data.latestIteration.value);
    const later = data.checkpoints.value.filter((c) => c.iteration > at).map((c) => c.iteration).sort((a, b) => a - b);
    const span = last > at + 1 ? `iterations ${at + 1}-${last}` : `iteration ${at + 1}`;
    const kept = later.length === 0 ? '' : ` and its later checkpoint${later.length === 1 ? '' : 's'} (iteration${later.length === 1 ? '' : 's'} ${later.join(', ')})`;
    return `resume from iteration ${at}? This deletes what the run recorded after it (${span})${kept}; Fork keeps them.`;
  }

  /** Why the "train on to" total cannot be used, or null when it can. */
  function continueProblem(checkpoint: CheckpointDto): string | null {
    const total = Number(continueTo.value);
    return Number.isInteger(total) && total > checkpoint.iteration ? null : `a whole number above ${checkpoint.iteration}`;
  }

  const resume = (checkpoint: CheckpointDto) =>
    act('resume', async () => {
      const overrides = confirming.value?.action === 'continue' ? [`trainer.total_training_steps=${Number(continueTo.value)}`] : undefined;
      // The question asked before resuming an earlier checkpoint was the consent to drop what came after it.
      const discardLater = confirming.value?.action === 'resume' || undefined;
      confirming.value = null;
      const { runId: started } = await api.resumeRun({ checkpointId: checkpoint.id, overrides, discardLater });
      await router.push(`/runs/${started}`);
    });

  function openFork(checkpoint: CheckpointDto): void {
    forking.value = checkpoint;
    if (backends.value === undefined) {
      // Without the probe every backend is offered; the trainer says why one cannot start.
      api.listBackends().then(
        (answer) => (backends.value = answer),
        () => undefined,
      );
    }
  }

  const fork = (request: ForkRequest) =>
    act('fork', async () => {
      const checkpoint = forking.value;
      if (!checkpoint) return;
      const problems = extraProblems(request.settings.extra);
      if (problems.length) throw new Error(problems.join('; '));
      const overrides = forkOverrides(request.settings, request.base);
      const { runId: started } = await api.resumeRun({ checkpointId: checkpoint.id, fork: true, overrides, name: request.name.trim() || undefined });
      forking.value = null;
      await router.push(`/runs/${started}`);
    });

  const evaluate = (checkpoint: CheckpointDto) =>
    act(`evaluate-${checkpoint.id}`, async () => {
      const count = episodes.value.trim() === '' ? undefined : Number(episodes.value);
      if (count !== undefined && !(Number.isInteger(count) && count > 0)) throw new Error('episodes must be a positive whole number (or empty for the config\'s validation set)');
      const result = await api.evaluateCheckpoint({ checkpointId: checkpoint.id, episodes: count });
      message.value = `evaluation #${result.evaluationId} of iteration ${result.iteration} stored: ${result.episodes} episodes, listed under its checkpoint`;
    });

  const remove = (checkpoint: CheckpointDto) =>
    act('delete', async () => {
      confirming.value = null;
      await api.deleteCheckpoint(checkpoint.id);
      message.value = `deleted checkpoint ${checkpoint.id} (iteration ${checkpoint.iteration})`;
    });

  function exported(result: ModelExportDto): void {
    exporting.value = null;
    message.value = `exported iteration ${result.iteration} as a Hugging Face model in ${result.dtype}${result.merged ? ' (adapters merged)' : ''} to ${result.out}`;
  }

  const saveFolder = (checkpoint: CheckpointDto) =>
    act('export', async () => {
      if (isDesktop()) {
        const saved = await api.saveCheckpointFolder(checkpoint.id);
        if (saved) message.value = `copied to ${saved.path}`;
      } else {
        download(serverUrl('/api/checkpoint-archive', { id: String(checkpoint.id) }));
        showTransient(message, 'download started');
      }
    });

  // A fork panel or a question about another run's checkpoint must not follow to this one.
  watch(runId, () => {
    forking.value = null;
    exporting.value = null;
    message.value = null;
    confirming.value = null;
  });

  const actions = reactive({
    message, busy, busyNote, confirming, continueTo, episodes, forking, exporting, backends,
    askResume, resumeQuestion, continueProblem, resume, openFork, fork, evaluate, remove, exported, saveFolder,
  });
  provide(ACTIONS, actions);
  return actions;
}

export type CheckpointActions = ReturnType<typeof useCheckpointActions>;

/** The actions of the Checkpoints view around the calling component. */
export function injectCheckpointActions(): CheckpointActions {
  const actions = inject(ACTIONS);
  if (!actions) throw new Error('a checkpoint component is used outside the Checkpoints view');
  return actions;
}
