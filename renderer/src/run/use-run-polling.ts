// The Run view's data: the runs store loads the run, its series and checkpoints, and is asked
// again on a timer only while the run still changes; a finished run is fetched once.
import { computed, onBeforeUnmount, watch } from 'vue';
import { LIVE_STATUSES, POLL_INTERVAL_MS, useRunsStore } from '../stores/runs';

export function useRunPolling(runId: () => number) {
  const store = useRunsStore();
  const live = computed(() => store.run !== null && LIVE_STATUSES.includes(store.run.status));
  let timer: ReturnType<typeof setTimeout> | null = null;

  function stopPolling(): void {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  }

  async function refresh(id: number): Promise<void> {
    stopPolling();
    await store.loadRun(id);
    if (id === runId() && live.value) timer = setTimeout(() => void refresh(id), POLL_INTERVAL_MS);
  }

  watch(
    runId,
    (id) => {
      store.clearRun();
      void refresh(id);
    },
    { immediate: true },
  );
  onBeforeUnmount(stopPolling);

  return { live, refresh: () => refresh(runId()) };
}
