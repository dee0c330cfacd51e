// The Run view's chart panels as data, so headline, pinned and section charts draw through one
// grid component.
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
