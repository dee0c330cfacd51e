// The Runs view's selection (its row boxes): kept while the page lives, so a trip to Compare or a
// run and back finds the same runs selected, as W&B's runs table keeps them. Runs deleted
// elsewhere (the CLI, another window) leave it when the list hears of it, so Compare, Export
// and the bulk actions never act on a run that is gone.
import { computed, ref } from 'vue';
import { api } from '../api';

const selected = ref<Set<number>>(new Set());
/** getRuns' own bound on the ids of one call. */
const IDS_A_CALL = 1000;

export function useRunSelection() {
  const selectedIds = computed(() => [...selected.value]);

  function toggle(runId: number): void {
    const next = new Set(selected.value);
    if (next.has(runId)) next.delete(runId);
    else next.add(runId);
    selected.value = next;
  }

  function setSelected(runIds: readonly number[], on: boolean): void {
    const next = new Set(selected.value);
    for (const id of runIds) {
      if (on) next.add(id);
      else next.delete(id);
    }
    selected.value = next;
  }

  function clear(): void {
    selected.value = new Set();
  }

  /** Drops the selected runs that no longer exist. */
  async function prune(): Promise<void> {
    const ids = selectedIds.value;
    if (ids.length === 0) return;
    const existing = new Set<number>();
    for (let i = 0; i < ids.length; i += IDS_A_CALL) {
      for (const run of await api.getRuns(ids.slice(i, i + IDS_A_CALL))) existing.add(run.id);
    }
    const gone = ids.filter((id) => !existing.has(id));
    if (gone.length > 0) setSelected(gone, false);
  }

  return { selected, selectedIds, toggle, setSelected, clear, prune };
}
