// The Run view's collapse badge: the trainer logs `rollout/collapse` (1 while the share of
// well-formed answers has fallen below half its best, RAGEN's echo trap) beside the share itself.
import type { MetricSeriesDto } from '../../../preload/contract';
import { COLLAPSE_METRIC, WELL_FORMED_METRIC } from '../../../preload/contract';

export interface CollapseBadge {
  iteration: number;
  /** The latest share of well-formed answers. */
  now: number;
  /** The best share before it. */
  was: number;
  text: string;
}

/** A badge while the latest iteration is marked collapsed; null otherwise. */
export function collapseBadge(series: MetricSeriesDto): CollapseBadge | null {
  const flags = series[COLLAPSE_METRIC] ?? [];
  const latest = flags.reduce<(typeof flags)[number] | null>((a, p) => (a === null || p.iteration > a.iteration ? p : a), null);
  if (!latest || latest.value !== 1) return null;
  const shares = series[WELL_FORMED_METRIC] ?? [];
  const now = shares.find((p) => p.iteration === latest.iteration)?.value ?? NaN;
  const was = shares.filter((p) => p.iteration <= latest.iteration).reduce((best, p) => Math.max(best, p.value ?? -Infinity), -Infinity);
  const text = Number.isFinite(now) && Number.isFinite(was)
    ? `collapsed: well-formed answers ${now.toFixed(2)} (was ${was.toFixed(2)})`
    : 'collapsed: well-formed answers fell';
  return { iteration: latest.iteration, now, was, text };
}
