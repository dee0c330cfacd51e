// The summary table: per run and metric, the final value and the best one, from the raw
// (unsmoothed) series.
import type { SeriesPointDto } from '../../../preload/contract';

export type Direction = 'max' | 'min';

/** Losses, KL, entropy and lengths are better low; rewards, success and accuracy high. */
export function defaultDirection(metric: string): Direction {
  return /(loss|kl|entropy|length|error|perplexity|grad_norm|time)/i.test(metric) ? 'min' : 'max';
}

export interface MetricSummary {
  final: number | null;
  finalIteration: number | null;
  best: number | null;
  bestIteration: number | null;
  /** Points with a finite value. */
  count: number;
}

export function summarize(points: ReadonlyArray<SeriesPointDto>, direction: Direction): MetricSummary {
  let final: SeriesPointDto | null = null;
  let best: SeriesPointDto | null = null;
  let count = 0;
  for (const point of points) {
    if (point.value === null || !Number.isFinite(point.value)) continue;
    count += 1;
    if (!final || point.iteration >= final.iteration) final = point;
    const better = direction === 'max' ? point.value > (best?.value ?? -Infinity) : point.value < (best?.value ?? Infinity);
    if (!best || better) best = point;
  }
  return {
    final: final?.value ?? null,
    finalIteration: final?.iteration ?? null,
    best: best?.value ?? null,
    bestIteration: best?.iteration ?? null,
    count,
  };
}

/** Mean and standard deviation (n - 1) of the members' values; null when none has one. */
export function meanStd(values: ReadonlyArray<number | null>): { mean: number; std: number; n: number } | null {
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) return null;
  const mean = present.reduce((sum, v) => sum + v, 0) / present.length;
  const variance = present.length > 1 ? present.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (present.length - 1) : 0;
  return { mean, std: Math.sqrt(variance), n: present.length };
}
