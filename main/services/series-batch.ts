// Compare's one call for many runs and metrics. Long series are thinned here, on the server,
// so a Compare of 20 runs over 10,000 iterations sends thousands of points, not millions.
import type { MetricRunsSeriesDto, SeriesPointDto } from '../../preload/contract';
import type { Store } from '../store/db';
import { minMaxIndices } from '../../preload/min-max-downsample';

export const DEFAULT_MAX_POINTS = 2000;

/** `points` (by iteration) thinned to about `maxPoints`, keeping bucket extremes, gaps and the last point. */
export function thinSeries(points: SeriesPointDto[], maxPoints: number): SeriesPointDto[] {
  if (points.length <= maxPoints) return points;
  const xs = points.map((p) => p.iteration);
  const ys = points.map((p) => p.value);
  return minMaxIndices(xs, [ys], maxPoints).map((i) => points[i]);
}

export function seriesBatch(store: Store, runIds: number[], names: string[], maxPoints = DEFAULT_MAX_POINTS): MetricRunsSeriesDto[] {
  return names.map((name) => {
    let downsampled = false;
    const series = runIds.map((runId) => {
      const all = store.metrics.series(runId, name);
      const points = thinSeries(all, maxPoints);
      if (points.length < all.length) downsampled = true;
      return { runId, points };
    });
    return { name, series, downsampled };
  });
}
