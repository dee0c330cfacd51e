// What the Runs view's buttons do: stop runs and seed groups, delete, edit and start runs, each refreshing the table
// and showing the refusal (a run that trains cannot be deleted) above it.
import { ref } from 'vue';
import { useRouter } from 'vue-router';
import type { RunDto } from '../../../preload/contract';
import { api } from '../api';

export function useRunActions(refresh: () => Promise<void>, unselect: (runId: number) => void) {
  const router = useRouter();
  const actionError = ref<string | null>(null);
  /** The run being edited, whole (the table's rows hold only what they show). */
  const editedRun = ref<RunDto | null>(null);

  async function act(work: () => Promise<unknown>): Promise<void> {
    actionError.value = null;
    try {
      await work();
    } catch (caught) {
      actionError.value = caught instanceof Error ? caught.message : String(caught);
    }
    await refresh();
  }

  const stopRun = (runId: number) => act(() => api.stopRun(runId));
  const stopGroup = (group: string) => act(() => api.stopSeedGroup(group));
  const deleteRun = (runId: number) =>
    act(async () => {
      await api.deleteRun(runId);
      unselect(runId);
    });

  async function editRun(runId: number): Promise<void> {
    actionError.value = null;
    try {
      editedRun.value = await api.getRun(runId);
    } catch (caught) {
      actionError.value = caught instanceof Error ? caught.message : String(caught);
    }
  }

  function openRun(runId: number): void {
    void router.push(`/runs/${runId}`);
  }

  function compare(runIds: number[]): void {
    void router.push({ path: '/compare', query: { runs: runIds.join(',') } });
  }

  return { actionError, editedRun, stopRun, stopGroup, deleteRun, editRun, openRun, compare };
}
