// The Run view's chart panels as data, so headline, pinned and section charts draw through one
// grid component.
import type { MetricSeriesDto } from '../../../preload/contract';
import type { HeadlineChart } from './headline';

export interface ChartPanel {
  key: string;
  title: string;
  /** The metrics drawn together in the panel. */
  names: string[];
  /** `data-chart` or `data-metric`, by which tests and links find the panel. */
  attrs: Record<string, string>;
  pinnable: boolean;
  pinned: boolean;
}

/** One metric's chart, with its pin. */
export function metricPanel(name: string, pins: readonly string[]): ChartPanel {
  return { key: name, title: name, names: [name], attrs: { 'data-metric': name }, pinnable: true, pinned: pins.includes(name) };
}

/** A headline chart: several metrics of one kind, not pinnable. */
export function headlinePanel(chart: HeadlineChart): ChartPanel {
  return { key: chart.key, title: chart.title, names: chart.names, attrs: { 'data-chart': chart.key }, pinnable: false, pinned: false };
}

/**
 * The iterations a run's charts share: the first and last logged from iteration 0 on over all
 * its metrics (and its fork parent's), so a metric logged once (the validation before training)
 * is drawn at its place in the run rather than alone on an axis of 0..1, and the shared cursor
 * lines up. Null while fewer than two iterations are logged (ECharts' own axis is as good then).
 */
export function iterationSpan(...series: ReadonlyArray<MetricSeriesDto | undefined>): [number, number] | null {
  let low = Infinity;
  let high = -Infinity;
  for (const one of series) {
    for (const points of Object.values(one ?? {})) {
      for (const point of points) {
        if (point.iteration < 0) continue;
        low = Math.min(low, point.iteration);
        high = Math.max(high, point.iteration);
      }
    }
  }
  return high > low ? [low, high] : null;
}

/**
 * The span for one chart: the run's, unless the chart has points before it, the warm start's
 * steps (logged at iterations up to 0), which keep their own axis instead of squeezing RL's.
 */
export function chartSpan(series: MetricSeriesDto, span: [number, number] | null): [number, number] | null {
  if (span === null) return null;
  return Object.values(series).every((points) => points.every((point) => point.iteration >= span[0])) ? span : null;
}
