// Compare shows several metric panels at once. The address lists them in order as repeated
// `metric` keys (#/compare?runs=1,2&metric=val/bandit/success&metric=train/reward/mean), so an
// address with one `metric` (the older form) opens one panel.
import type { LocationQuery } from 'vue-router';
import { headlineCharts } from '../run/headline';

/** The panels an address names, in order, each metric once. */
export function panelsFromQuery(query: LocationQuery): string[] {
  const raw = query.metric;
  const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string' && v !== '');
  return [...new Set(values)];
}

/** Metric name -> how many of the selected runs log it (compareMetricNames' answer). */
export type MetricRuns = ReadonlyMap<string, number>;

/**
 * The panels to keep for runs that log `names`: those they log, or, when none is left, one
 * panel with the headline metric most of the runs log (nextPanelMetric).
 */
export function panelsForNames(panels: readonly string[], names: readonly string[], runs: MetricRuns = new Map()): string[] {
  const kept = panels.filter((p) => names.includes(p));
  if (kept.length > 0 || names.length === 0) return kept;
  return [nextPanelMetric([], names, runs) ?? names[0]];
}

/** The first of `candidates` logged by the most runs: a bandit run beside three FrozenLake runs does not choose for them. */
function mostLogged(candidates: readonly string[], runs: MetricRuns): string | undefined {
  let best: string | undefined;
  for (const name of candidates) if (best === undefined || (runs.get(name) ?? 0) > (runs.get(best) ?? 0)) best = name;
  return best;
}

/**
 * The metric a new panel starts with: of the headline metrics not shown yet (validation success,
 * train success, reward, well-formed answers, response length, in that order), the one most of
 * the runs log; else a mean reward, else any other; null when every metric has its panel.
 */
export function nextPanelMetric(panels: readonly string[], names: readonly string[], runs: MetricRuns = new Map()): string | null {
  const free = names.filter((n) => !panels.includes(n));
  const headline = headlineCharts(free).map((chart) => chart.names[0]);
  return mostLogged(headline, runs) ?? mostLogged(free.filter((n) => /reward\/mean$/.test(n)), runs) ?? mostLogged(free, runs) ?? null;
}

/**
 * The summary table's first columns: up to four validation successes and mean rewards, those
 * most of the runs log first (the sort keeps the names' order among equals).
 */
export function summaryDefaults(names: readonly string[], runs: MetricRuns = new Map()): string[] {
  const logged = (n: string) => runs.get(n) ?? 0;
  return names
    .filter((n) => /^val\/.*success$/.test(n) || /reward\/mean$/.test(n))
    .sort((a, b) => logged(b) - logged(a))
    .slice(0, 4);
}

/** Panel `index` shows `name`; a panel that showed it already takes the old metric (a swap). */
export function setPanelMetric(panels: readonly string[], index: number, name: string): string[] {
  const next = panels.slice();
  const other = next.indexOf(name);
  if (other !== -1 && other !== index) next[other] = next[index];
  next[index] = name;
  return next;
}

/** The panels without the one at `index`; the last panel stays. */
export function removePanel(panels: readonly string[], index: number): string[] {
  return panels.length <= 1 ? panels.slice() : panels.filter((_, i) => i !== index);
}
