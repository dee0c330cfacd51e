// Which episodes the Replay view shows: the run, and either one of its iterations or a stored
// evaluation, read from and written to the URL query so links and reloads land in the same place.
import { computed, ref, watch } from 'vue';
import { useRoute, useRouter } from 'vue-router';
import type { RunDto, StoredEvaluationDto } from '../../../preload/contract';
import { replaceQueryAt } from '../address';
import { api } from '../api';
import { readReplayQuery, replayQuery, type ReplayQuery } from './route';

export function describeError(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The iteration to show: the one asked for, else the last with episodes; a chart point between stored iterations takes the nearest. */
export function nearestIteration(stored: readonly number[], wanted: number | null): number | null {
  if (stored.length === 0) return null;
  if (wanted === null) return stored[stored.length - 1];
  return stored.reduce((best, it) => (Math.abs(it - wanted) < Math.abs(best - wanted) ? it : best), stored[0]);
}

export function useReplaySource(runId: () => number) {
  const route = useRoute();
  const router = useRouter();
  // The run picker's choices: the newest runs (a store of 10,000 is not listed whole) and this one.
  const runs = ref<Array<Pick<RunDto, 'id' | 'name'>>>([]);
  /** Runs older than the newest 200 the picker lists: said in it, not dropped unsaid. */
  const olderRuns = ref(0);
  const run = ref<RunDto | null>(null);
  const iterations = ref<number[]>([]);
  const evaluations = ref<StoredEvaluationDto[]>([]);
  const error = ref<string | null>(null);

  const query = computed(() => readReplayQuery(route.query));
  const evaluationId = computed(() => query.value.evaluation);
  const evaluation = computed(() => evaluations.value.find((e) => e.id === evaluationId.value) ?? null);
  const iteration = computed<number | null>(() =>
    evaluationId.value !== null ? (evaluation.value?.iteration ?? null) : nearestIteration(iterations.value, query.value.iteration),
  );
  // The address is rewritten to the iteration shown as soon as its episodes load, so the one asked
  // for (a link's, a chart point's) is kept here until another is picked, for the note.
  const missedIteration = ref<number | null>(null);
  watch(
    [() => query.value.iteration, iterations],
    ([wanted, stored]) => {
      if (wanted !== null && evaluationId.value === null && stored.length > 0 && !stored.includes(wanted)) missedIteration.value = wanted;
    },
    { immediate: true },
  );
  const iterationNote = computed(() => {
    const wanted = missedIteration.value;
    return wanted !== null && iteration.value !== null && wanted !== iteration.value
      ? `No episodes stored at iteration ${wanted}; showing iteration ${iteration.value}, the nearest.`
      : null;
  });

  function navigate(patch: Partial<ReplayQuery>): void {
    replaceQueryAt(router, `/runs/${runId()}/replay`, replayQuery({ ...query.value, ...patch }));
  }

  async function loadRun(id: number): Promise<void> {
    error.value = null;
    missedIteration.value = null;
    run.value = null;
    iterations.value = [];
    try {
      const [newest, one, its, evals] = await Promise.all([
        api.runPage({ sort: 'id', descending: true, limit: 200 }),
        api.getRun(id),
        api.episodeIterations(id),
        api.listEvaluations(id),
      ]);
      if (id !== runId()) return;
      const all = newest.rows.some((r) => r.id === id) ? newest.rows : [one, ...newest.rows];
      runs.value = all.map((r) => ({ id: r.id, name: r.name })).sort((a, b) => a.id - b.id);
      olderRuns.value = Math.max(0, newest.total - all.length);
      run.value = one;
      iterations.value = its;
      evaluations.value = evals;
    } catch (e) {
      error.value = describeError(e);
    }
  }
  watch(runId, (id) => void loadRun(id), { immediate: true });

  return {
    runs, olderRuns, run, iterations, evaluations, error, query, evaluationId, evaluation, iteration, iterationNote, navigate,
    pickRun: (id: number) => void router.push({ path: `/runs/${id}/replay` }),
    pickIteration: (it: number) => {
      missedIteration.value = null;
      navigate({ iteration: it, episode: null, turn: 0 });
    },
    /** null for the run's own episodes, else a stored evaluation's id. */
    pickSource: (evaluationShown: number | null) => {
      missedIteration.value = null;
      navigate({ evaluation: evaluationShown, iteration: null, episode: null, turn: 0 });
    },
    pickEpisode: (id: number) => navigate({ episode: id, turn: 0 }),
  };
}

export type ReplaySource = ReturnType<typeof useReplaySource>;
