import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { TurnLabEvent } from '../../../preload/contract';
import { subscribeEvents } from './transport';

type Listener = (event: TurnLabEvent) => void;

/**
 * One event subscription for the whole page, shared by the views. `eventsDown` is true while no
 * events arrive (the views then poll every 2 s instead).
 */
export const useLiveStore = defineStore('live', () => {
  const eventsDown = ref(true);
  const lastEvent = ref<TurnLabEvent | null>(null);
  const listeners = new Set<Listener>();
  let unsubscribe: (() => void) | null = null;

  function ensure(): void {
    if (unsubscribe) return;
    unsubscribe = subscribeEvents(
      (event) => {
        lastEvent.value = event;
        for (const listener of listeners) listener(event);
      },
      (down) => (eventsDown.value = down),
    );
  }

  /** Listens until the returned function is called. */
  function on(listener: Listener): () => void {
    ensure();
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  return { eventsDown, lastEvent, on };
});
