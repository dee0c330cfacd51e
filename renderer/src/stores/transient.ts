// A note that clears itself ("download started"): the browser shows the download; the note
// only says that the click did something and must not linger as if still true.
import type { Ref } from 'vue';

export const TRANSIENT_MS = 4000;

/** Sets `target` to `text`, then clears it after TRANSIENT_MS unless something replaced it. */
export function showTransient(target: Ref<string | null>, text: string): void {
  target.value = text;
  setTimeout(() => {
    if (target.value === text) target.value = null;
  }, TRANSIENT_MS);
}
