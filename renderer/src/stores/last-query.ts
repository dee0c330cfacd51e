// A view's last address query, kept in localStorage, so the top bar's link to the view brings
// back what it last showed (the comparison, the Runs table's columns, sort and filters) instead
// of its defaults.
import { ref, type Ref } from 'vue';
import type { LocationQuery } from 'vue-router';

/** A query value the address can hold: one text, or several (the repeated `metric` of panels). */
export type QueryValue = string | string[];

function isQueryValue(value: unknown): value is QueryValue {
  return typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
}

/** The page's localStorage; absent where these modules run outside a browser (the unit tests). */
const storage = () => (globalThis as { localStorage?: { getItem(key: string): string | null; setItem(key: string, value: string): void } }).localStorage;

function read(key: string): Record<string, QueryValue> {
  try {
    const parsed: unknown = JSON.parse(storage()?.getItem(key) ?? '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, QueryValue] => isQueryValue(e[1])));
    }
  } catch {
    // A damaged entry starts from the view's defaults.
  }
  return {};
}

export interface LastQuery {
  query: Ref<Record<string, QueryValue>>;
  remember(query: LocationQuery): void;
}

/** The remembered query under `key`; `omit` names one-off parameters not to bring back. */
export function lastQuery(key: string, omit: readonly string[] = []): LastQuery {
  const query = ref<Record<string, QueryValue>>(read(key));
  return {
    query,
    remember(current: LocationQuery): void {
      const plain = Object.fromEntries(
        Object.entries(current)
          .filter(([name]) => !omit.includes(name))
          .map(([name, value]) => [name, Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : value] as const)
          .filter((e): e is [string, QueryValue] => isQueryValue(e[1])),
      );
      query.value = plain;
      try {
        storage()?.setItem(key, JSON.stringify(plain));
      } catch {
        // Storage disabled: the link still works within this page.
      }
    },
  };
}
