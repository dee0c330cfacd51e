// The ECharts option for a comparison plot. Bands are two stacked series (the lower edge,
// invisible, then upper minus lower filled), the usual way to draw a range in ECharts; they
// share the mean line's name so the legend toggles line and band together.
import type { EChartsOption, LineSeriesOption } from 'echarts';
import { escapeHtml } from '../format';
import { nearestIndex } from './bracket';
import { xAxisLabel, type PlotLine, type XAxisKind } from './plot';

export const PALETTE = [
  '#5470c6', '#91cc75', '#fac858', '#ee6666', '#73c0de', '#3ba272', '#fc8452', '#9a60b4', '#ea7ccc',
  '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf',
];

export interface ChartOptionSettings {
  xAxis: XAxisKind;
  /**
   * The lines the tooltip reads on axes where lines do not share their x (time, a metric): the
   * drawn ones, which a zoom replaces; `lines` when absent.
   */
  tooltipLines?: () => PlotLine[];
  /** Whether the legend hides a line (by its label): the tooltip leaves it out. */
  isHidden?: (label: string) => boolean;
  logScale: boolean;
  /** A log x axis (not for wall time). */
  logX?: boolean;
  /** The full x extent, so zooming (which replaces the data) never moves the axis. */
  extent: [number, number] | null;
  /** The zoom window in x values; absent shows everything. */
  window?: [number, number];
  /** The metric's possible range (a rate's [0, 1]): the y axis never runs past it. */
  range?: readonly [number, number];
}

interface TooltipItem {
  seriesId?: string;
  seriesName?: string;
  value?: unknown;
  marker?: string;
}

function shownValue(y: number | null | undefined): string {
  return y === null || y === undefined ? '–' : String(Number(y.toPrecision(5)));
}

/**
 * The tooltip at one x: each line's value and, under smoothing, its raw value beside it
 * (band series carry the line's name for the legend and are left out).
 */
export function tooltipHtml(params: unknown, xAxis: XAxisKind): string {
  const items = (Array.isArray(params) ? params : [params]) as TooltipItem[];
  const yOf = (item: TooltipItem) => (item.value as [number, number | null] | undefined)?.[1];
  const raw = new Map(items.filter((p) => /-raw$/.test(String(p.seriesId ?? ''))).map((p) => [String(p.seriesId).slice(0, -4), yOf(p)]));
  const lines = items.filter((p) => !/-band-|-raw$/.test(String(p.seriesId ?? '')));
  const x = (lines[0]?.value as [number, number | null] | undefined)?.[0];
  const head = x === undefined ? '' : formatX(x, xAxis);
  const rows = lines.map((p) => {
    const id = String(p.seriesId ?? '');
    const rawPart = raw.has(id) ? ` <span class="raw-value">(raw ${shownValue(raw.get(id))})</span>` : '';
    const parentPart = id.endsWith('-lineage') ? ' (parent, before the fork)' : '';
    return `${p.marker ?? ''}${escapeHtml(p.seriesName ?? '')}${parentPart}: ${shownValue(yOf(p))}${rawPart}`;
  });
  return [head, ...rows].join('<br/>');
}

function dot(color: string): string {
  return `<span style="display:inline-block;margin-right:4px;border-radius:10px;width:10px;height:10px;background-color:${color};"></span>`;
}

/**
 * The tooltip at `x` on an axis where lines do not share their x (time, a metric): every shown
 * line's point nearest to `x` within its own span, with a smoothed line's raw value beside it.
 * ECharts' own axis tooltip lists only the series whose nearest point is the nearest of all, so
 * hovering one run's curve hid every other run's value.
 */
export function tooltipAtX(lines: PlotLine[], x: number, xAxis: XAxisKind, isHidden: (label: string) => boolean = () => false): string {
  const colors = lineColors(lines);
  const raw = new Map(lines.filter((line) => line.raw).map((line) => [line.id.slice(0, -'-raw'.length), line]));
  const rows: string[] = [];
  lines.forEach((line, index) => {
    if (line.raw || isHidden(line.label)) return;
    const at = nearestIndex(line.x, x);
    if (at < 0) return;
    const twin = raw.get(line.id);
    const twinAt = twin ? nearestIndex(twin.x, x) : -1;
    const rawPart = twin && twinAt >= 0 ? ` <span class="raw-value">(raw ${shownValue(twin.y[twinAt])})</span>` : '';
    const parentPart = line.lineage ? ' (parent, before the fork)' : '';
    rows.push(`${dot(colors[index])}${escapeHtml(line.label)}${parentPart}: ${shownValue(line.y[at])}${rawPart}`);
  });
  return [formatX(x, xAxis), ...rows].join('<br/>');
}

/** The y axis: a rate stays within [0, 1] (not the 1.2 or 1.6 a nice-number scale picks). */
export function yAxisOption(logScale: boolean, range: readonly [number, number] | undefined): EChartsOption['yAxis'] {
  if (logScale) return { type: 'log' };
  if (!range) return { type: 'value', scale: true };
  // Data outside the range (a ratio past 1) still shows: the bound only holds while the data does.
  const [lo, hi] = range;
  return { type: 'value', min: (v: { min: number }) => (v.min >= lo ? lo : v.min), max: (v: { max: number }) => (v.max <= hi ? hi : v.max) };
}

function pairs(x: number[], y: Array<number | null>): Array<[number, number | null]> {
  return x.map((xi, i) => [xi, y[i]]);
}

/** A point a line cannot reach: no value on either side of it (a run validated once, a value between gaps). */
function isolated(y: Array<number | null>, i: number): boolean {
  return y[i] !== null && (i === 0 || y[i - 1] === null) && (i === y.length - 1 || y[i + 1] === null);
}

type LinePoint = [number, number | null] | { value: [number, number | null]; symbol: string; symbolSize: number };

/** The line's points, the isolated ones drawn as dots: a line through one point draws nothing. */
function linePoints(x: number[], y: Array<number | null>): { data: LinePoint[]; dots: boolean } {
  let dots = false;
  const data = x.map((xi, i): LinePoint => {
    if (!isolated(y, i)) return [xi, y[i]];
    dots = true;
    return { value: [xi, y[i]], symbol: 'circle', symbolSize: 6 };
  });
  return { data, dots };
}

/** Line colours: a group's members take the group's colour, every other line the next one. */
export function lineColors(lines: PlotLine[]): string[] {
  let next = 0;
  let groupColor = PALETTE[0];
  let previous = PALETTE[0];
  return lines.map((line) => {
    if (line.raw || line.lineage) return previous;
    if (line.member) return groupColor;
    const color = PALETTE[next++ % PALETTE.length];
    if (line.kind === 'group') groupColor = color;
    previous = color;
    return color;
  });
}

/** Only the series list, for updating the data after a zoom without touching the rest. */
export function buildSeries(lines: PlotLine[]): LineSeriesOption[] {
  const colors = lineColors(lines);
  const series: LineSeriesOption[] = [];
  lines.forEach((line, index) => {
    const color = colors[index];
    if (line.lower && line.upper) {
      const lower = line.lower;
      const upper = line.upper;
      const stack = `band-${line.id}`;
      series.push({
        id: `${line.id}-band-lower`,
        name: line.label,
        type: 'line',
        stack,
        symbol: 'none',
        silent: true,
        lineStyle: { opacity: 0 },
        color,
        data: pairs(line.x, lower),
      });
      series.push({
        id: `${line.id}-band-width`,
        name: line.label,
        type: 'line',
        stack,
        symbol: 'none',
        silent: true,
        lineStyle: { opacity: 0 },
        areaStyle: { color, opacity: 0.2 },
        color,
        data: pairs(
          line.x,
          upper.map((u, i) => (u === null || lower[i] === null ? null : u - (lower[i] as number))),
        ),
      });
    }
    const points = linePoints(line.x, line.y);
    series.push({
      id: line.id,
      name: line.label,
      type: 'line',
      symbol: 'none',
      // Only the isolated points carry a symbol of their own; the rest stay 'none'.
      showSymbol: points.dots,
      connectNulls: false,
      color,
      // The raw curve under a smoothed one, and a fork's parent's history, are faint and drawn first (lower z).
      z: line.raw || line.lineage ? 1 : 2,
      lineStyle: {
        width: line.member || line.raw ? 1 : line.kind === 'group' ? 2.5 : 1.5,
        opacity: line.raw ? 0.25 : line.lineage ? 0.4 : line.member ? 0.35 : 1,
      },
      emphasis: { disabled: true },
      data: points.data,
    });
  });
  return series;
}

/** Seconds since the start as "14.8 s", "2:05" or "1:02:05", never 14.831999999999999. */
export function formatSeconds(seconds: number): string {
  if (Math.abs(seconds) < 60) return `${Number(seconds.toFixed(1))} s`;
  // A fork's parent lies at negative times: the sign once, before the clock.
  if (seconds < 0) return `-${formatSeconds(-seconds)}`;
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** An x value as the tooltip shows it. */
export function formatX(x: number, axis: XAxisKind): string {
  if (axis === 'wall') return new Date(x).toISOString().replace('T', ' ').slice(0, 19);
  if (axis === 'relative') return formatSeconds(x);
  if (axis === 'iteration') return `iteration ${x}`;
  return `${xAxisLabel(axis)} = ${Number(x.toPrecision(6))}`;
}

export function buildChartOption(lines: PlotLine[], settings: ChartOptionSettings): EChartsOption {
  const mainLabels = [...new Set(lines.filter((l) => !l.member).map((l) => l.label))];
  const zoom = settings.window ? { startValue: settings.window[0], endValue: settings.window[1] } : { start: 0, end: 100 };
  const spread = settings.extent !== null && settings.extent !== undefined && settings.extent[0] < settings.extent[1];
  return {
    animation: false,
    grid: { left: 64, right: 24, top: 16, bottom: 64 },
    // The legend is HTML beside the chart (CompareChart), wrapping instead of paging; this hidden
    // one keeps ECharts' toggling of a line with its band and raw twin.
    legend: { show: false, data: mainLabels },
    tooltip: {
      trigger: 'axis',
      className: 'chart-tooltip',
      // Iterations are shared x values, so ECharts lists every line there; other axes read the lines.
      formatter: (params: unknown) => {
        if (settings.xAxis === 'iteration') return tooltipHtml(params, settings.xAxis);
        const first = (Array.isArray(params) ? params[0] : params) as { axisValue?: unknown; value?: unknown } | undefined;
        const x = typeof first?.axisValue === 'number' ? first.axisValue : (first?.value as [number] | undefined)?.[0];
        return x === undefined ? '' : tooltipAtX(settings.tooltipLines?.() ?? lines, x, settings.xAxis, settings.isHidden);
      },
    },
    dataZoom: [
      { type: 'inside', xAxisIndex: 0, filterMode: 'none', ...zoom },
      { type: 'slider', xAxisIndex: 0, filterMode: 'none', height: 18, bottom: 8, ...zoom },
    ],
    xAxis: {
      type: settings.xAxis === 'wall' ? 'time' : settings.logX ? 'log' : 'value',
      name: xAxisLabel(settings.xAxis),
      nameLocation: 'middle',
      nameGap: 24,
      // One x value (every line a single point) is no range: ECharts then draws one around it.
      min: spread ? settings.extent?.[0] : undefined,
      max: spread ? settings.extent?.[1] : undefined,
      minInterval: settings.xAxis === 'iteration' && !settings.logX ? 1 : undefined,
      // Left out rather than undefined: an explicit `axisLabel: undefined` replaces ECharts'
      // defaults and hides every tick label.
      ...(settings.xAxis === 'relative' ? { axisLabel: { formatter: (value: number) => formatSeconds(value) } } : {}),
      // A zoomed window's edges are fractions (2.822) that ECharts labels like ticks; iterations are whole.
      ...(settings.xAxis === 'iteration' && !settings.logX ? { axisLabel: { formatter: iterationTick } } : {}),
    },
    yAxis: yAxisOption(settings.logScale, settings.range),
    series: buildSeries(lines),
  };
}

export function iterationTick(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString('en-US') : '';
}

/**
 * The x window of a dataZoom event, from its percentages of the full extent (inside zoom) or
 * its values (slider), whichever it carries. On a log axis the percentages are of log x.
 */
export function zoomWindow(
  event: { start?: number; end?: number; startValue?: number; endValue?: number; batch?: unknown[] },
  extent: [number, number],
  logX = false,
): [number, number] {
  const source = (event.batch?.[0] ?? event) as typeof event;
  if (typeof source.startValue === 'number' && typeof source.endValue === 'number') return [source.startValue, source.endValue];
  const [lo, hi] = logX ? [Math.log10(extent[0]), Math.log10(extent[1])] : extent;
  const start = typeof source.start === 'number' ? source.start : 0;
  const end = typeof source.end === 'number' ? source.end : 100;
  const at = (percent: number) => lo + ((hi - lo) * percent) / 100;
  return logX ? [10 ** at(start), 10 ** at(end)] : [at(start), at(end)];
}
