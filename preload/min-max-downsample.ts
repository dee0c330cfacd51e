// Downsampling that keeps extremes: per x bucket the points holding each series' minimum and
// maximum survive, so a one-step spike in 10,000 points is still drawn. Buckets span equal x
// widths of the visible window, so a zoom recomputes them at the new resolution.

/** The indices of `xs` (ascending) inside [lo, hi], widened by one point each side so lines reach the edges. */
export function visibleRange(xs: ArrayLike<number>, range?: readonly [number, number]): [number, number] {
  if (xs.length === 0) return [0, -1];
  if (!range) return [0, xs.length - 1];
  const [lo, hi] = range;
  let first = 0;
  while (first < xs.length && xs[first] < lo) first += 1;
  let last = xs.length - 1;
  while (last >= 0 && xs[last] > hi) last -= 1;
  return [Math.max(0, first - 1), Math.min(xs.length - 1, last + 1)];
}

/**
 * Picks at most about `budget` indices of the points in view: the first and last, and in each
 * bucket the index of the minimum and maximum of every series in `ys`, plus the first null (so
 * a gap stays a gap). Below the budget every index in view is kept.
 */
export function minMaxIndices(
  xs: ArrayLike<number>,
  ys: ReadonlyArray<ArrayLike<number | null>>,
  budget: number,
  range?: readonly [number, number],
): number[] {
  const [from, to] = visibleRange(xs, range);
  const count = to - from + 1;
  if (count <= 0) return [];
  const all = (): number[] => Array.from({ length: count }, (_, i) => from + i);
  if (count <= Math.max(budget, 2)) return all();
  const buckets = Math.max(1, Math.floor(budget / (2 * Math.max(1, ys.length) + 1)));
  const x0 = xs[from];
  const width = xs[to] - x0;
  if (!(width > 0)) return all();
  const keep = new Set<number>([from, to]);
  let bucketStart = from;
  while (bucketStart <= to) {
    const bucket = Math.min(buckets - 1, Math.floor(((xs[bucketStart] - x0) / width) * buckets));
    let bucketEnd = bucketStart;
    while (
      bucketEnd + 1 <= to &&
      Math.min(buckets - 1, Math.floor(((xs[bucketEnd + 1] - x0) / width) * buckets)) === bucket
    ) {
      bucketEnd += 1;
    }
    for (const y of ys) {
      let minAt = -1;
      let maxAt = -1;
      let nullAt = -1;
      for (let i = bucketStart; i <= bucketEnd; i++) {
        const v = y[i];
        if (v === null || !Number.isFinite(v)) {
          if (nullAt < 0) nullAt = i;
          continue;
        }
        if (minAt < 0 || v < (y[minAt] as number)) minAt = i;
        if (maxAt < 0 || v > (y[maxAt] as number)) maxAt = i;
      }
      if (minAt >= 0) keep.add(minAt);
      if (maxAt >= 0) keep.add(maxAt);
      if (nullAt >= 0) keep.add(nullAt);
    }
    bucketStart = bucketEnd + 1;
  }
  return [...keep].sort((a, b) => a - b);
}
