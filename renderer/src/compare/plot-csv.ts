// "Export what is plotted": the drawn lines of every panel, point for point, as CSV (one row
// per drawn point; the metric column says which panel).
import { stringify } from 'csv-stringify/browser/esm/sync';
import type { PlotLine, XAxisKind } from './plot';
import { fileNamePart } from '../../../preload/file-names';

export const PLOT_CSV_COLUMNS = [
  'metric', 'series', 'kind', 'run_ids', 'run_names', 'iteration', 'x_axis', 'x', 'value', 'lower', 'upper', 'n', 'smoothing', 'smoothing_kind',
] as const;

/** One panel's drawn lines. */
export interface PlottedPanel {
  metric: string;
  lines: PlotLine[];
}

function panelRows(panel: PlottedPanel, xAxis: XAxisKind, runNames: ReadonlyMap<number, string>): Array<Array<string | number>> {
  const rows: Array<Array<string | number>> = [];
  const cell = (v: number | null | undefined): string | number => (v === null || v === undefined ? '' : v);
  for (const line of panel.lines) {
    const base = line.kind === 'group' ? 'group_mean' : line.member ? 'member_run' : line.lineage ? 'parent_run_before_fork' : 'run';
    const kind = line.raw ? `raw_${base}` : base;
    // Names beside ids, so a CSV opened on its own says which runs it holds.
    const names = line.runIds.map((id) => runNames.get(id) ?? '').join('; ');
    for (let i = 0; i < line.x.length; i++) {
      rows.push([
        panel.metric,
        // A raw curve is not smoothed: it does not carry the smoothed line's "(EMA 0.60)".
        line.raw ? (line.rawLabel ?? line.label) : line.label,
        kind,
        line.runIds.join(' '),
        names,
        line.iteration[i],
        xAxis,
        line.x[i],
        cell(line.y[i]),
        cell(line.lower?.[i]),
        cell(line.upper?.[i]),
        cell(line.n?.[i]),
        line.smoothing ?? 0,
        line.smoothingKind ?? '',
      ]);
    }
  }
  return rows;
}

/** Every panel's points; empty cells stand for gaps (null) and for columns a line does not have. */
export function panelsToCsv(panels: readonly PlottedPanel[], xAxis: XAxisKind, runNames: ReadonlyMap<number, string> = new Map()): string {
  const rows = panels.flatMap((panel) => panelRows(panel, xAxis, runNames));
  return stringify(rows, { header: true, columns: [...PLOT_CSV_COLUMNS] });
}

/** One panel's points. */
export function plotToCsv(metric: string, xAxis: XAxisKind, lines: PlotLine[], runNames?: ReadonlyMap<number, string>): string {
  return panelsToCsv([{ metric, lines }], xAxis, runNames);
}

/** A file name that says what the CSV holds: the metric, or how many when several are plotted. */
export function plotCsvFileName(metrics: readonly string[], runIds: number[]): string {
  const what = metrics.length === 1 ? fileNamePart(metrics[0], 120) : `${metrics.length}-metrics`;
  return `turnlab-compare-${what}-runs-${runIds.join('-')}.csv`;
}
