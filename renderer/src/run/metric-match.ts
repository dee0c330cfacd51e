// How a metric search matches names, shared by the Run view's search and Compare's panel
// pickers: words in any order (the default), a prefix, or a regular expression.
import { matchesSearch } from './headline';

export const MATCH_MODES = ['words', 'prefix', 'regex'] as const;
export type MatchMode = (typeof MATCH_MODES)[number];

export const MATCH_MODE_LABELS: Record<MatchMode, string> = {
  words: 'contains',
  prefix: 'starts with',
  regex: 'regex',
};

export interface MetricMatcher {
  test(name: string): boolean;
  /** Why the query cannot be used (an invalid regular expression), else null. */
  problem: string | null;
}

export function metricMatcher(query: string, mode: MatchMode): MetricMatcher {
  const text = query.trim();
  if (text === '') return { test: () => true, problem: null };
  if (mode === 'prefix') {
    const lower = text.toLowerCase();
    return { test: (name) => name.toLowerCase().startsWith(lower), problem: null };
  }
  if (mode === 'regex') {
    try {
      const pattern = new RegExp(text, 'i');
      return { test: (name) => pattern.test(name), problem: null };
    } catch (error) {
      return { test: () => false, problem: `not a regular expression: ${(error as Error).message}` };
    }
  }
  return { test: (name) => matchesSearch(name, text), problem: null };
}

/** The names to offer for `query`: recent picks first (those that still match), then the others in order. */
export function suggestions(names: readonly string[], query: string, mode: MatchMode, recent: readonly string[], limit = 60): string[] {
  const matcher = metricMatcher(query, mode);
  const known = new Set(names);
  const first = recent.filter((name) => known.has(name) && matcher.test(name));
  const rest = names.filter((name) => !first.includes(name) && matcher.test(name));
  return [...first, ...rest].slice(0, limit);
}

/** `recent` with `name` at its front, each name once, at most `keep` long. */
export function rememberRecent(recent: readonly string[], name: string, keep = 8): string[] {
  return [name, ...recent.filter((n) => n !== name)].slice(0, keep);
}
