// The comparison plot as data: which lines (runs, group means with bands) are drawn, at which
// points. The chart, the CSV export and the benchmark all read this one model, so the CSV holds
// exactly what the chart shows.
import type { SeriesPointDto } from '../../../preload/contract';
import { bracket } from './bracket';
import { aggregateBand, type BandMode } from './seed-groups';
import { isActive, pointSpacing, smoothingLegend, smoothValues, type Smoothing, type SmoothingKind } from './smoothers';
import { minMaxIndices } from '../../../preload/min-max-downsample';

/**
 * `relative` is seconds since the run's first logged point; `wall` is epoch milliseconds;
 * `metric:NAME` is another metric of the same run (W&B's "any metric as x"), such as
 * `perf/total_generated_tokens`, to compare runs of different batch sizes by the samples they
 * used rather than by their iterations.
 */
export type XAxisKind = 'iteration' | 'relative' | 'wall' | `metric:${string}`;

const X_AXIS_LABELS: Record<'iteration' | 'relative' | 'wall', string> = {
  iteration: 'iteration',
  relative: 'time since start (s)',
  wall: 'wall time',
};

/** The metric an x axis reads, or null for iteration and the two clocks. */
export function xAxisMetric(kind: XAxisKind): string | null {
  return kind.startsWith('metric:') ? kind.slice('metric:'.length) : null;
}

/** The axis's name under the chart. */
export function xAxisLabel(kind: XAxisKind): string {
  return xAxisMetric(kind) ?? X_AXIS_LABELS[kind as keyof typeof X_AXIS_LABELS];
}

export interface RunSeries {
  runId: number;
  label: string;
  points: SeriesPointDto[];
  /** With a metric x axis: that metric's points of this run (absent or empty: nothing is drawn). */
  xPoints?: SeriesPointDto[];
  /** A fork's parent's points up to the fork, drawn faint before the fork's own (as W&B does). */
  lineage?: { parentRunId: number; upTo: number; points: SeriesPointDto[]; xPoints?: SeriesPointDto[] };
}

export interface PlotGroup {
  label: string;
  runIds: number[];
}

export interface PlotOptions {
  xAxis: XAxisKind;
  /** The smoothing's parameter (an EMA's weight in [0, 1), a window, a sigma; see smoothers.ts). */
  smoothing: number;
  /** Which smoothing (smoothers.ts); the EMA when absent. */
  smoothingKind?: SmoothingKind;
  /** Seed groups with two or more members become a mean line with a band; null draws runs only. */
  groups: PlotGroup[] | null;
  bandMode: BandMode;
  /** With groups: also draw each member run. */
  showMembers: boolean;
  /** A log axis cannot show values <= 0; they become gaps (and empty CSV cells). */
  logScale: boolean;
  /** A log x axis: points at x <= 0 (a relative clock's first, a count's zero) are left out. */
  logX?: boolean;
  /** The metric's possible range (a rate's [0, 1]); bands are clipped to it. */
  range?: readonly [number, number];
}

/** Rates (success, well-formed answers, valid actions, pass@k, clip fractions) lie in [0, 1]. */
export function metricRange(name: string): [number, number] | undefined {
  return /(success|format_ok|action_is_valid|action_is_effective|pass@\d+|clipfrac|context_full|_rate|_ratio)$/.test(name) ? [0, 1] : undefined;
}

function clip(values: Array<number | null>, range: readonly [number, number] | undefined): Array<number | null> {
  return range ? values.map((v) => (v === null ? null : Math.min(range[1], Math.max(range[0], v)))) : values;
}

export interface PlotLine {
  id: string;
  label: string;
  kind: 'run' | 'group';
  runIds: number[];
  /** A member run drawn under its group's band. */
  member: boolean;
  iteration: number[];
  x: number[];
  y: Array<number | null>;
  /** Band edges, for group lines. */
  lower?: Array<number | null>;
  upper?: Array<number | null>;
  /** Members with a value at each point, for group lines. */
  n?: number[];
  /** The smoothing's parameter applied to y (0 for the raw curve drawn faint under a smoothed one). */
  smoothing?: number;
  /** The smoothing applied, when one is. */
  smoothingKind?: SmoothingKind;
  /** The unsmoothed twin of the line before it, drawn faint underneath (TensorBoard's look). */
  raw?: boolean;
  /** A raw twin's own name (its `label` is the smoothed line's, so the legend toggles both). */
  rawLabel?: string;
  /**
   * A fork's parent's curve up to the fork point, drawn faint in the fork's colour after the
   * fork's line; `runIds` holds the parent, `label` the fork's (the legend toggles both).
   */
  lineage?: { forkRunId: number; upTo: number };
}

/**
 * A metric x axis reads the x metric at each point's iteration, linearly between the iterations
 * it was logged at (the server may have thinned either series differently); NaN outside them.
 */
function metricAt(xPoints: readonly SeriesPointDto[]): (iteration: number) => number {
  const known = xPoints.filter((p) => p.value !== null && Number.isFinite(p.value)).sort((a, b) => a.iteration - b.iteration);
  const iterations = known.map((p) => p.iteration);
  return (iteration) => {
    const at = bracket(iterations, iteration);
    if (!at) return NaN;
    const a = known[at[0]];
    const b = known[at[1]];
    if (a === b) return a.value!;
    return a.value! + ((b.value! - a.value!) * (iteration - a.iteration)) / (b.iteration - a.iteration);
  };
}

/** Each point's x; NaN where a metric x axis has no value (the point is left out). */
function xOfPoint(kind: XAxisKind, start: number, xPoints?: readonly SeriesPointDto[]): (point: SeriesPointDto) => number {
  if (kind === 'iteration') return (p) => p.iteration;
  if (kind === 'wall') return (p) => p.wallTime;
  if (kind === 'relative') return (p) => (p.wallTime - start) / 1000;
  const at = metricAt(xPoints ?? []);
  return (p) => at(p.iteration);
}

function endOf(points: readonly SeriesPointDto[]): number {
  let end = -Infinity;
  for (const p of points) if (p.wallTime > end) end = p.wallTime;
  return Number.isFinite(end) ? end : 0;
}

function startOf(points: SeriesPointDto[]): number {
  let start = Infinity;
  for (const p of points) if (p.wallTime < start) start = p.wallTime;
  return Number.isFinite(start) ? start : 0;
}

/**
 * The points a line draws, in x order: a clock only moves on, but a metric x need not (W&B
 * sorts by it too), and the downsampler wants x ascending.
 */
function placed(points: readonly SeriesPointDto[], xOf: (point: SeriesPointDto) => number, options: Pick<PlotOptions, 'xAxis' | 'logX'>): Array<{ point: SeriesPointDto; x: number }> {
  const out = points.map((point) => ({ point, x: xOf(point) })).filter((p) => !options.logX || p.x > 0);
  if (xAxisMetric(options.xAxis) === null) return out;
  return out.filter((p) => Number.isFinite(p.x)).sort((a, b) => a.x - b.x || a.point.iteration - b.point.iteration);
}

function forLog(values: Array<number | null>, logScale: boolean): Array<number | null> {
  return logScale ? values.map((v) => (v !== null && v > 0 ? v : null)) : values;
}

function runLine(run: RunSeries, options: PlotOptions, member: boolean): PlotLine {
  // A time axis must be ascending; the store orders by iteration, and a resumed run's clock only moves on.
  const points = placed(run.points, xOfPoint(options.xAxis, startOf(run.points), run.xPoints), options);
  return {
    id: `run-${run.runId}`,
    label: run.label,
    kind: 'run',
    runIds: [run.runId],
    member,
    iteration: points.map((p) => p.point.iteration),
    x: points.map((p) => p.x),
    y: points.map((p) => p.point.value),
  };
}

function groupLine(group: PlotGroup, members: RunSeries[], options: PlotOptions): PlotLine {
  const xOfs = members.map((m) => xOfPoint(options.xAxis, startOf(m.points), m.xPoints));
  const aligned = aggregateBand(
    members.map((m) => m.points),
    (point, index) => xOfs[index](point),
    options.bandMode,
  );
  // Members are aligned on the iteration and drawn at their mean x; on a metric axis, in x order.
  const onAxis = options.logX ? aligned.filter((b) => b.x > 0) : aligned;
  const band = xAxisMetric(options.xAxis) === null ? onAxis : onAxis.filter((b) => Number.isFinite(b.x)).sort((a, b) => a.x - b.x || a.iteration - b.iteration);
  return {
    id: `group-${group.runIds.join('-')}`,
    label: group.label,
    kind: 'group',
    runIds: group.runIds.slice(),
    member: false,
    iteration: band.map((b) => b.iteration),
    x: band.map((b) => b.x),
    y: band.map((b) => b.mean),
    lower: band.map((b) => b.lower),
    upper: band.map((b) => b.upper),
    n: band.map((b) => b.n),
  };
}

function smoothingOf(options: PlotOptions): Smoothing {
  return { kind: options.smoothingKind ?? 'ema', amount: options.smoothing };
}

/**
 * A line as drawn: smoothed (the band edges like the mean, so the band follows the line the
 * reader sees), then a log axis's gaps, then the band clipped to the metric's range (mean ± std
 * of a rate can pass 0 or 1). The legend names the smoothing, so a screenshot says what it shows.
 */
function finish(line: PlotLine, options: PlotOptions, unit: number): PlotLine {
  const smoothing = smoothingOf(options);
  const active = isActive(smoothing);
  const drawn = (values: Array<number | null>) => forLog(smoothValues(smoothing, line.x, values, unit), options.logScale);
  return {
    ...line,
    label: active && !line.member ? `${line.label} (${smoothingLegend(smoothing)})` : line.label,
    y: drawn(line.y),
    lower: line.lower && clip(drawn(line.lower), options.range),
    upper: line.upper && clip(drawn(line.upper), options.range),
    smoothing: active ? smoothing.amount : 0,
    smoothingKind: active ? smoothing.kind : undefined,
  };
}

/** The unsmoothed twin drawn faint under a smoothed line; it carries the smoothed label, so the legend toggles both. */
function rawTwin(line: PlotLine, smoothed: PlotLine, options: PlotOptions): PlotLine {
  return {
    ...line,
    id: `${line.id}-raw`,
    label: smoothed.label,
    rawLabel: `${line.label} (raw)`,
    raw: true,
    y: forLog(line.y, options.logScale),
    lower: undefined,
    upper: undefined,
    n: undefined,
    smoothing: 0,
  };
}

/**
 * Each fork's parent's curve up to the fork point, by the fork's line id. On the relative time
 * axis the parent's points fall before the fork's start (negative seconds), timed back from the
 * fork point: a fork made days after its parent trained would otherwise push the parent days to
 * the left and squeeze both curves to the axis's ends.
 */
function lineageLines(lines: PlotLine[], runs: Map<number, RunSeries>, options: PlotOptions): Map<string, PlotLine> {
  const out = new Map<string, PlotLine>();
  for (const line of lines) {
    const run = line.kind === 'run' && !line.member ? runs.get(line.runIds[0]) : undefined;
    const lineage = run?.lineage;
    if (!run || !lineage || lineage.points.length === 0) continue;
    const xOf = xOfPoint(options.xAxis, options.xAxis === 'relative' ? endOf(lineage.points) : startOf(run.points.length > 0 ? run.points : lineage.points), lineage.xPoints);
    const points = placed(lineage.points, xOf, options);
    out.set(line.id, {
      id: `${line.id}-lineage`,
      label: line.label,
      kind: 'run',
      runIds: [lineage.parentRunId],
      member: false,
      iteration: points.map((p) => p.point.iteration),
      x: points.map((p) => p.x),
      y: points.map((p) => p.point.value),
      lineage: { forkRunId: run.runId, upTo: lineage.upTo },
    });
  }
  return out;
}

/**
 * Every line at full resolution, in draw order: each run or group line, a fork's parent after
 * it, and under smoothing the raw curve (not for a group's member runs, already faint).
 */
export function buildPlot(runs: RunSeries[], options: PlotOptions): PlotLine[] {
  const byId = new Map(runs.map((r) => [r.runId, r]));
  const own = buildOwnLines(runs, byId, options);
  const lineage = lineageLines(own, byId, options);
  const unit = pointSpacing([...own, ...lineage.values()]);
  const twins = isActive(smoothingOf(options));
  return own.flatMap((line) => {
    const smoothed = finish(line, options, unit);
    const parent = lineage.get(line.id);
    return [
      smoothed,
      ...(parent ? [{ ...finish(parent, options, unit), label: smoothed.label }] : []),
      ...(twins && !line.member ? [rawTwin(line, smoothed, options)] : []),
    ];
  });
}

/** The runs' and groups' lines, unsmoothed. */
function buildOwnLines(runs: RunSeries[], byId: Map<number, RunSeries>, options: PlotOptions): PlotLine[] {
  if (!options.groups) return runs.map((r) => runLine(r, options, false));
  const lines: PlotLine[] = [];
  for (const group of options.groups) {
    const members = group.runIds.map((id) => byId.get(id)).filter((r): r is RunSeries => r !== undefined);
    if (members.length === 0) continue;
    if (members.length === 1) {
      lines.push(runLine(members[0], options, false));
      continue;
    }
    lines.push(groupLine(group, members, options));
    if (options.showMembers) lines.push(...members.map((m) => runLine(m, options, true)));
  }
  return lines;
}

function pick<T>(values: T[] | undefined, indices: number[]): T[] | undefined {
  return values && indices.map((i) => values[i]);
}

/**
 * Each line reduced to about `budget` points of the x window `range` (all of it when absent).
 * On a log x axis the buckets are even in log x, as the pixels are: even in x, the left decades
 * would share a bucket or two.
 */
export function downsamplePlot(lines: PlotLine[], budget: number, range?: readonly [number, number], logX = false): PlotLine[] {
  const scale = (x: number) => (logX ? Math.log10(x) : x);
  const window = range && ([scale(range[0]), scale(range[1])] as const);
  return lines.map((line) => {
    const ys = [line.y, ...(line.lower ? [line.lower] : []), ...(line.upper ? [line.upper] : [])];
    const indices = minMaxIndices(logX ? line.x.map(scale) : line.x, ys, budget, window);
    return {
      ...line,
      iteration: pick(line.iteration, indices)!,
      x: pick(line.x, indices)!,
      y: pick(line.y, indices)!,
      lower: pick(line.lower, indices),
      upper: pick(line.upper, indices),
      n: pick(line.n, indices),
    };
  });
}

/** The x extent of all lines, for a fixed axis that zooming does not shift. */
export function xExtent(lines: PlotLine[]): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const line of lines) {
    for (const x of line.x) {
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
  }
  return lo <= hi ? [lo, hi] : null;
}
