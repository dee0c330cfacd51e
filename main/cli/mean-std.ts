/** Mean and sample standard deviation (n - 1; 0 for one value) of the values present; null for none. */
export function meanStd(values: ReadonlyArray<number | null | undefined>): { mean: number; std: number; n: number } | null {
  const xs = values.filter((v): v is number => typeof v === 'number');
  if (xs.length === 0) return null;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const std = xs.length > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean, std, n: xs.length };
}
