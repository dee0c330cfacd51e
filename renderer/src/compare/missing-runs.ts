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

/**
 * What a log scale leaves out of a panel: values of 0 or below have no place on it, so a run
 * whose every value is (a success rate of 0, a penalty) would vanish without a word. Null when
 * nothing is left out.
 */
export function logScaleNote(series: readonly RunSeriesDto[] | undefined, runIds: readonly number[]): string | null {
  if (!series) return null;
  const whole: number[] = [];
  const part: number[] = [];
  for (const id of runIds) {
    const values = series.filter((d) => d.runId === id).flatMap((d) => d.points.map((p) => p.value)).filter((v): v is number => v !== null);
    const left = values.filter((v) => v <= 0).length;
    if (left === 0) continue;
    (left === values.length ? whole : part).push(id);
  }
  if (whole.length + part.length === 0) return null;
  const runs = (ids: number[]) => `${ids.length === 1 ? 'run' : 'runs'} ${ids.map((id) => `#${id}`).join(', ')}`;
  const which = [whole.length > 0 ? `${runs(whole)} entirely` : '', part.length > 0 ? `${runs(part)} in part` : ''].filter((s) => s !== '').join(', ');
  return `The log scale leaves out values of 0 or below: ${which}.`;
}

/**
 * The line under the x axis picker when it is a metric: the runs that do not log it (not drawn
 * against it), or, when every value it has is the same (a count a run never advanced), why every
 * point stacks at one x. Null otherwise.
 */
export function xAxisNote(metric: string, series: readonly RunSeriesDto[] | undefined, runIds: readonly number[]): string | null {
  const missing = runsWithout(series, runIds);
  if (missing.length > 0) {
    const one = missing.length === 1;
    return `${one ? 'Run' : 'Runs'} ${missing.map((id) => `#${id}`).join(', ')} ${one ? 'does' : 'do'} not log ${metric}, so ${one ? 'it is' : 'they are'} not drawn against it.`;
  }
  const values = new Set((series ?? []).filter((d) => runIds.includes(d.runId)).flatMap((d) => d.points.map((p) => p.value)).filter((v) => v !== null));
  if (values.size !== 1) return null;
  return `Every value of ${metric} is ${[...values][0]}, so every point stands at one x: pick an x axis that changes over a run.`;
}
