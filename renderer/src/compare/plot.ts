// The comparison plot as data: which lines (runs, group means with bands) are drawn, at which
// points. The chart, the CSV export and the benchmark all read this one model, so the CSV holds
// exactly what the chart shows.
import type { SeriesPointDto } from '../../../preload/contract';
import { bracket } from './bracket';
import { emaSmooth } from './ema';
import { aggregateBand, type BandMode } from './seed-groups';
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
  /** EMA weight in [0, 1). */
  smoothing: number;
  /** Seed groups with two or more members become a mean line with a band; null draws runs only. */
  groups: PlotGroup[] | null;
  bandMode: BandMode;
  /** With groups: also draw each member run. */
  showMembers: boolean;
  /** A log axis cannot show values <= 0; they become gaps (and empty CSV cells). */
  logScale: boolean;
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
  /** The EMA weight applied to y (0 for the raw curve drawn faint under a smoothed one). */
  smoothing?: number;
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

function startOf(points: SeriesPointDto[]): number {
  let start = Infinity;
  for (const p of points) if (p.wallTime < start) start = p.wallTime;
  return Number.isFinite(start) ? start : 0;
}

/**
 * The points a line draws, in x order: a clock only moves on, but a metric x need not (W&B
 * sorts by it too), and the downsampler wants x ascending.
 */
function placed(points: readonly SeriesPointDto[], xOf: (point: SeriesPointDto) => number, kind: XAxisKind): Array<{ point: SeriesPointDto; x: number }> {
  const out = points.map((point) => ({ point, x: xOf(point) }));
  if (xAxisMetric(kind) === null) return out;
  return out.filter((p) => Number.isFinite(p.x)).sort((a, b) => a.x - b.x || a.point.iteration - b.point.iteration);
}

function forLog(values: Array<number | null>, logScale: boolean): Array<number | null> {
  return logScale ? values.map((v) => (v !== null && v > 0 ? v : null)) : values;
}

function runLine(run: RunSeries, options: PlotOptions, member: boolean): PlotLine {
  // A time axis must be ascending; the store orders by iteration, and a resumed run's clock only moves on.
  const points = placed(run.points, xOfPoint(options.xAxis, startOf(run.points), run.xPoints), options.xAxis);
  return {
    id: `run-${run.runId}`,
    label: run.label,
    kind: 'run',
    runIds: [run.runId],
    member,
    iteration: points.map((p) => p.point.iteration),
    x: points.map((p) => p.x),
    y: forLog(emaSmooth(points.map((p) => p.point.value), options.smoothing), options.logScale),
    smoothing: options.smoothing,
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
  const band = xAxisMetric(options.xAxis) === null ? aligned : aligned.filter((b) => Number.isFinite(b.x)).sort((a, b) => a.x - b.x || a.iteration - b.iteration);
  // The band edges are smoothed like the mean, so the band follows the line the reader sees.
  const smooth = (values: Array<number | null>) => forLog(emaSmooth(values, options.smoothing), options.logScale);
  return {
    id: `group-${group.runIds.join('-')}`,
    label: group.label,
    kind: 'group',
    runIds: group.runIds.slice(),
    member: false,
    iteration: band.map((b) => b.iteration),
    x: band.map((b) => b.x),
    y: smooth(band.map((b) => b.mean)),
    // mean ± std of a rate can pass 0 or 1; the band stops at the metric's range.
    lower: clip(smooth(band.map((b) => b.lower)), options.range),
    upper: clip(smooth(band.map((b) => b.upper)), options.range),
    n: band.map((b) => b.n),
    smoothing: options.smoothing,
  };
}

/** The legend names the smoothing, so a screenshot says what it shows. */
function smoothedLabel(label: string, smoothing: number): string {
  return smoothing > 0 ? `${label} (EMA ${smoothing.toFixed(2)})` : label;
}

/**
 * With smoothing, each run or group line (not a group's member runs, already faint) is
 * followed by its raw curve; both carry the smoothed label, so the legend toggles them together.
 */
function withRawTwins(lines: PlotLine[], runs: Map<number, RunSeries>, groups: Map<string, PlotLine>, options: PlotOptions): PlotLine[] {
  if (options.smoothing <= 0) return lines;
  const raw = { ...options, smoothing: 0 };
  return lines.flatMap((line) => {
    if (line.member) return [line];
    const label = smoothedLabel(line.label, options.smoothing);
    const twin =
      line.kind === 'group'
        ? groups.get(line.id)!
        : runLine(runs.get(line.runIds[0])!, raw, false);
    return [
      { ...line, label },
      { ...twin, id: `${line.id}-raw`, label, rawLabel: `${line.label} (raw)`, raw: true, lower: undefined, upper: undefined, n: undefined, smoothing: 0 },
    ];
  });
}

/**
 * After each fork's own line, its parent's curve up to the fork point. On the relative time
 * axis the parent's points fall before the fork's start (negative seconds).
 */
function withLineage(lines: PlotLine[], runs: Map<number, RunSeries>, options: PlotOptions): PlotLine[] {
  return lines.flatMap((line) => {
    const run = line.kind === 'run' && !line.member && !line.raw ? runs.get(line.runIds[0]) : undefined;
    const lineage = run?.lineage;
    if (!run || !lineage || lineage.points.length === 0) return [line];
    const xOf = xOfPoint(options.xAxis, startOf(run.points.length > 0 ? run.points : lineage.points), lineage.xPoints);
    const points = placed(lineage.points, xOf, options.xAxis);
    return [
      line,
      {
        id: `${line.id}-lineage`,
        label: line.label,
        kind: 'run',
        runIds: [lineage.parentRunId],
        member: false,
        iteration: points.map((p) => p.point.iteration),
        x: points.map((p) => p.x),
        y: forLog(emaSmooth(points.map((p) => p.point.value), options.smoothing), options.logScale),
        smoothing: options.smoothing,
        lineage: { forkRunId: run.runId, upTo: lineage.upTo },
      },
    ];
  });
}

/** Every line at full resolution, in draw order. */
export function buildPlot(runs: RunSeries[], options: PlotOptions): PlotLine[] {
  const byId = new Map(runs.map((r) => [r.runId, r]));
  return withLineage(buildOwnLines(runs, byId, options), byId, options);
}

function buildOwnLines(runs: RunSeries[], byId: Map<number, RunSeries>, options: PlotOptions): PlotLine[] {
  const rawGroups = new Map<string, PlotLine>();
  if (!options.groups) return withRawTwins(runs.map((r) => runLine(r, options, false)), byId, rawGroups, options);
  const lines: PlotLine[] = [];
  for (const group of options.groups) {
    const members = group.runIds.map((id) => byId.get(id)).filter((r): r is RunSeries => r !== undefined);
    if (members.length === 0) continue;
    if (members.length === 1) {
      lines.push(runLine(members[0], options, false));
      continue;
    }
    const line = groupLine(group, members, options);
    if (options.smoothing > 0) rawGroups.set(line.id, groupLine(group, members, { ...options, smoothing: 0 }));
    lines.push(line);
    if (options.showMembers) lines.push(...members.map((m) => runLine(m, options, true)));
  }
  return withRawTwins(lines, byId, rawGroups, options);
}

function pick<T>(values: T[] | undefined, indices: number[]): T[] | undefined {
  return values && indices.map((i) => values[i]);
}

/** Each line reduced to about `budget` points of the x window `range` (all of it when absent). */
export function downsamplePlot(lines: PlotLine[], budget: number, range?: readonly [number, number]): PlotLine[] {
  return lines.map((line) => {
    const ys = [line.y, ...(line.lower ? [line.lower] : []), ...(line.upper ? [line.upper] : [])];
    const indices = minMaxIndices(line.x, ys, budget, range);
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
