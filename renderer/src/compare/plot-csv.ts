// "Export what is plotted": the drawn lines, point for point, as CSV (one row per drawn point).
import { stringify } from 'csv-stringify/browser/esm/sync';
import type { PlotLine, XAxisKind } from './plot';

export const PLOT_CSV_COLUMNS = ['metric', 'series', 'kind', 'run_ids', 'iteration', 'x_axis', 'x', 'value', 'lower', 'upper', 'n', 'smoothing'] as const;

/** Empty cells stand for gaps (null) and for columns a line does not have. */
export function plotToCsv(metric: string, xAxis: XAxisKind, lines: PlotLine[]): string {
  const rows: Array<Array<string | number>> = [];
  const cell = (v: number | null | undefined): string | number => (v === null || v === undefined ? '' : v);
  for (const line of lines) {
    const base = line.kind === 'group' ? 'group_mean' : line.member ? 'member_run' : 'run';
    const kind = line.raw ? `raw_${base}` : base;
    for (let i = 0; i < line.x.length; i++) {
      rows.push([
        metric,
        line.label,
        kind,
        line.runIds.join(' '),
        line.iteration[i],
        xAxis,
        line.x[i],
        cell(line.y[i]),
        cell(line.lower?.[i]),
        cell(line.upper?.[i]),
        cell(line.n?.[i]),
        line.smoothing ?? 0,
      ]);
    }
  }
  return stringify(rows, { header: true, columns: [...PLOT_CSV_COLUMNS] });
}

/** A file name that says what the CSV holds. */
export function plotCsvFileName(metric: string, runIds: number[]): string {
  const safe = metric.replace(/[^\w.-]+/g, '_');
  return `turnlab-compare-${safe}-runs-${runIds.join('-')}.csv`;
}
