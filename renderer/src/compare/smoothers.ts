// The smoothings Compare offers, registered by name (W&B's four): TensorBoard's EMA, a
// time-weighted EMA, a running average and a Gaussian kernel. Each reads a line's x as well as
// its y, because the server thins long series and runs log at different rates: an EMA over
// points smooths a thinned line more than the full one, where the two x-aware kinds do not.
import { emaSmooth } from './ema';

export type SmoothingKind = 'ema' | 'twema' | 'running' | 'gaussian';

export interface Smoothing {
  kind: SmoothingKind;
  /** The kind's parameter: a weight for the EMAs, a window or a sigma in points for the others. */
  amount: number;
}

export const NO_SMOOTHING: Smoothing = { kind: 'ema', amount: 0 };

type Values = ReadonlyArray<number | null>;

interface Smoother {
  /** The menu's name. */
  title: string;
  /** The legend's name, with the parameter: "EMA 0.60", "running mean 9". */
  legend: (amount: number) => string;
  /** The slider's caption: "smoothing 0.60", "window 9 points". */
  caption: (amount: number) => string;
  /** The parameter's control: its name, range and step, what switching to this kind sets, and the amount that leaves a line as it is. */
  param: { hint: string; min: number; max: number; step: number; initial: number; off: number };
  valid: (amount: number) => boolean;
  /** Whether this amount changes anything (a weight of 0, a window of one point do not). */
  active: (amount: number) => boolean;
  /** `unit` is the x distance one point stands for (the densest line's median spacing). */
  smooth: (x: readonly number[], y: Values, amount: number, unit: number) => Array<number | null>;
}

const isWeight = (amount: number) => Number.isFinite(amount) && amount >= 0 && amount < 1;

/** A value that is missing or not finite passes through and does not enter any average. */
const counts = (value: number | null): value is number => value !== null && Number.isFinite(value);

/**
 * The EMA with a decay of `weight` per `unit` of x (W&B's TWEMA, debiased the same way): on a
 * line with a point at every unit it is the plain EMA; a line with a point every fourth unit
 * decays four times a point, so both show the same curve.
 */
function timeWeightedEma(x: readonly number[], y: Values, weight: number, unit: number): Array<number | null> {
  if (weight === 0) return y.slice();
  let sum = 0;
  let norm = 0;
  let lastX: number | null = null;
  return y.map((value, i) => {
    if (!counts(value)) return value;
    const decay = lastX === null ? 0 : weight ** (Math.max(0, x[i] - lastX) / unit);
    sum = sum * decay + value;
    norm = norm * decay + 1;
    lastX = x[i];
    return sum / norm;
  });
}

/** The mean of a centred window of `window` points (a boxcar), fewer at the ends. */
function runningMean(y: Values, window: number): Array<number | null> {
  const before = Math.floor((window - 1) / 2);
  const after = window - 1 - before;
  const sums = [0];
  const ns = [0];
  for (const value of y) {
    sums.push(sums[sums.length - 1] + (counts(value) ? value : 0));
    ns.push(ns[ns.length - 1] + (counts(value) ? 1 : 0));
  }
  return y.map((value, i) => {
    if (!counts(value)) return value;
    const lo = Math.max(0, i - before);
    const hi = Math.min(y.length, i + after + 1);
    return (sums[hi] - sums[lo]) / (ns[hi] - ns[lo]);
  });
}

/**
 * A Gaussian-weighted mean over x (sigma `points` units), so points spaced unevenly weigh by
 * their distance; the kernel is cut at four sigma, where its weight is below 0.04%.
 */
function gaussian(x: readonly number[], y: Values, points: number, unit: number): Array<number | null> {
  const sigma = points * unit;
  if (!(sigma > 0)) return y.slice();
  const reach = 4 * sigma;
  const gap = evenGap(x);
  if (gap !== null) return gaussianEven(y, sigma / gap);
  let lo = 0;
  return y.map((value, i) => {
    if (!counts(value)) return value;
    while (x[lo] < x[i] - reach) lo += 1;
    let sum = 0;
    let norm = 0;
    for (let j = lo; j < y.length && x[j] <= x[i] + reach; j++) {
      const other = y[j];
      if (!counts(other)) continue;
      const d = (x[j] - x[i]) / sigma;
      const w = Math.exp(-0.5 * d * d);
      sum += w * other;
      norm += w;
    }
    return sum / norm;
  });
}

/** The one spacing of a line with a point at every step of x (most lines: every iteration), else null. */
function evenGap(x: readonly number[]): number | null {
  const gap = x.length > 1 ? x[1] - x[0] : 0;
  if (!(gap > 0)) return null;
  for (let i = 2; i < x.length; i++) if (x[i] - x[i - 1] !== gap) return null;
  return gap;
}

/**
 * The same mean on evenly spaced points (sigma in steps): the weights depend on the offset alone
 * and are worked out once, which saves the exponential that a wide kernel over 20 runs of 10,000
 * points would otherwise cost some 80 million times.
 */
function gaussianEven(y: Values, sigma: number): Array<number | null> {
  const reach = Math.floor(4 * sigma);
  const weights = Float64Array.from({ length: reach + 1 }, (_, k) => Math.exp(-0.5 * (k / sigma) ** 2));
  const values = Float64Array.from(y, (v) => (counts(v) ? v : 0));
  const present = Float64Array.from(y, (v) => (counts(v) ? 1 : 0));
  return y.map((value, i) => {
    if (!counts(value)) return value;
    let sum = 0;
    let norm = 0;
    const lo = Math.max(0, i - reach);
    const hi = Math.min(y.length - 1, i + reach);
    for (let j = lo; j <= hi; j++) {
      const w = weights[j > i ? j - i : i - j] * present[j];
      sum += w * values[j];
      norm += w;
    }
    return sum / norm;
  });
}

export const SMOOTHERS: Record<SmoothingKind, Smoother> = {
  ema: {
    title: 'EMA (TensorBoard)',
    legend: (w) => `EMA ${w.toFixed(2)}`,
    caption: (w) => `smoothing ${w.toFixed(2)}`,
    param: { hint: 'the weight of the past, point by point: 0 draws the curve as logged', min: 0, max: 0.99, step: 0.01, initial: 0.6, off: 0 },
    valid: isWeight,
    active: (w) => w > 0,
    smooth: (_x, y, w) => emaSmooth(y, w),
  },
  twema: {
    title: 'time-weighted EMA',
    legend: (w) => `time-weighted EMA ${w.toFixed(2)}`,
    caption: (w) => `smoothing ${w.toFixed(2)}`,
    param: { hint: 'the weight of the past per point of the densest line, the same along x for every line', min: 0, max: 0.99, step: 0.01, initial: 0.6, off: 0 },
    valid: isWeight,
    active: (w) => w > 0,
    smooth: timeWeightedEma,
  },
  running: {
    title: 'running average',
    legend: (n) => `running mean ${n}`,
    caption: (n) => `window ${n} ${n === 1 ? 'point' : 'points'}`,
    param: { hint: 'the points averaged around each point, centred', min: 1, max: 100, step: 1, initial: 9, off: 1 },
    valid: (n) => Number.isInteger(n) && n >= 1 && n <= 1000,
    active: (n) => n > 1,
    smooth: (_x, y, n) => runningMean(y, n),
  },
  gaussian: {
    title: 'Gaussian',
    legend: (s) => `Gaussian σ ${s}`,
    caption: (s) => `σ ${s} points`,
    param: { hint: "the kernel's standard deviation, in points of the densest line", min: 0, max: 50, step: 0.5, initial: 3, off: 0 },
    valid: (s) => Number.isFinite(s) && s >= 0 && s <= 1000,
    active: (s) => s > 0,
    smooth: gaussian,
  },
};

export const SMOOTHING_KINDS = Object.keys(SMOOTHERS) as SmoothingKind[];

/** `kind` at the amount that changes nothing (the menu keeps the kind with smoothing off). */
export function smoothingOff(kind: SmoothingKind): Smoothing {
  return { kind, amount: SMOOTHERS[kind].param.off };
}

export function isSmoothingKind(name: string | undefined): name is SmoothingKind {
  return name !== undefined && Object.prototype.hasOwnProperty.call(SMOOTHERS, name);
}

/** Whether a smoothing changes the curve (and so draws the raw one under it). */
export function isActive(smoothing: Smoothing): boolean {
  return SMOOTHERS[smoothing.kind].valid(smoothing.amount) && SMOOTHERS[smoothing.kind].active(smoothing.amount);
}

/** The legend's "(EMA 0.60)" for a smoothed line. */
export function smoothingLegend(smoothing: Smoothing): string {
  return SMOOTHERS[smoothing.kind].legend(smoothing.amount);
}

/** One line's values smoothed; x ascending, the same length as y. */
export function smoothValues(smoothing: Smoothing, x: readonly number[], y: Values, unit: number): Array<number | null> {
  if (!isActive(smoothing)) return y.slice();
  return SMOOTHERS[smoothing.kind].smooth(x, y, smoothing.amount, unit > 0 && Number.isFinite(unit) ? unit : 1);
}

/**
 * The x distance one point stands for in a panel: the median spacing of its densest line, so
 * that line is smoothed point by point and every other line by the same distance on x.
 */
export function pointSpacing(lines: ReadonlyArray<{ x: readonly number[] }>): number {
  let densest: readonly number[] = [];
  for (const line of lines) if (line.x.length > densest.length) densest = line.x;
  const gaps: number[] = [];
  for (let i = 1; i < densest.length; i++) {
    const gap = densest[i] - densest[i - 1];
    if (gap > 0 && Number.isFinite(gap)) gaps.push(gap);
  }
  if (gaps.length === 0) return 1;
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)];
}

/** What switching the menu to `kind` sets: the same amount where it means something there. */
export function switchSmoothing(current: Smoothing, kind: SmoothingKind): Smoothing {
  const smoother = SMOOTHERS[kind];
  const amount = smoother.valid(current.amount) && smoother.active(current.amount) ? current.amount : smoother.param.initial;
  return { kind, amount };
}
