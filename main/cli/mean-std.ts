/** Mean and sample standard deviation (n - 1; 0 for one value) of the values present; null for none. */
export function meanStd(values: ReadonlyArray<number | null | undefined>): { mean: number; std: number; n: number } | null {
  const xs = values.filter((v): v is number => typeof v === 'number');
  if (xs.length === 0) return null;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const std = xs.length > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean, std, n: xs.length };
}

/** `mean ± std` to 3 decimals; one value has no spread to show (not `± 0.000`), none is `-`. */
export function formatMeanStd(stats: { mean: number; std: number; n: number } | null): string {
  if (stats === null) return '-';
  return stats.n === 1 ? `${stats.mean.toFixed(3)} (one run)` : `${stats.mean.toFixed(3)} ± ${stats.std.toFixed(3)}`;
}
