// Which selected runs never logged a metric, and the line under a panel that says so, so an
// empty or partial chart says why rather than drawing bare axes.
import type { RunSeriesDto } from '../../../preload/contract';

/** Of `runIds`, those with no value of the metric in `series` (its loaded series); none before they load. */
export function runsWithout(series: readonly RunSeriesDto[] | undefined, runIds: readonly number[]): number[] {
  if (!series) return [];
  const logged = new Set(series.filter((d) => d.points.some((p) => p.value !== null)).map((d) => d.runId));
  return runIds.filter((id) => !logged.has(id));
}

/** "Run #8 does not log m."; when no selected run logs it, what to do instead. Null when every run logs it. */
export function missingMetricNote(metric: string, missing: readonly number[], selected: number): string | null {
  if (missing.length === 0) return null;
  const runs = `${missing.length === 1 ? 'Run' : 'Runs'} ${missing.map((id) => `#${id}`).join(', ')}`;
  return `${runs} ${missing.length === 1 ? 'does' : 'do'} not log ${metric}${missing.length === selected ? ': pick a metric they log' : ''}.`;
}
