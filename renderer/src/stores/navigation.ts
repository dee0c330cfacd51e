import { defineStore } from 'pinia';
import { ref } from 'vue';

export type ViewName = 'runs' | 'run';

/** Which view shows: a router-free tab state, mirrored in the hash so a reload keeps it. */
export const useNavigation = defineStore('navigation', () => {
  const view = ref<ViewName>('runs');
  const runId = ref<number | null>(null);

  function fromHash(hash: string): void {
    const match = /^#\/runs\/(\d+)$/.exec(hash);
    if (match) {
      runId.value = Number(match[1]);
      view.value = 'run';
    } else {
      view.value = 'runs';
    }
  }

  function openRun(id: number): void {
    runId.value = id;
    view.value = 'run';
    window.location.hash = `#/runs/${id}`;
  }

  function showRuns(): void {
    view.value = 'runs';
    window.location.hash = '#/runs';
  }

  fromHash(window.location.hash);
  window.addEventListener('hashchange', () => fromHash(window.location.hash));

  return { view, runId, openRun, showRuns };
});
