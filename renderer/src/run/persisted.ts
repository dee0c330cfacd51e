// Run-view preferences kept in localStorage across reloads and runs: pinned metrics, the
// metric search, collapsed sections. Unreadable or foreign values fall back to the default.
import { ref, watch, type Ref } from 'vue';

export function persistedRef<T>(key: string, fallback: T, valid: (value: unknown) => value is T): Ref<T> {
  let initial = fallback;
  try {
    const raw = localStorage.getItem(key);
    if (raw !== null) {
      const parsed: unknown = JSON.parse(raw);
      if (valid(parsed)) initial = parsed;
    }
  } catch {
    // A damaged entry is ignored and overwritten on the next change.
  }
  const value = ref(initial) as Ref<T>;
  watch(
    value,
    (next) => {
      try {
        localStorage.setItem(key, JSON.stringify(next));
      } catch {
        // Storage full or disabled: the preference lasts for this page only.
      }
    },
    { deep: true },
  );
  return value;
}

export const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');
export const isString = (value: unknown): value is string => typeof value === 'string';
