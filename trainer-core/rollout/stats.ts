/** Small statistics shared by the normalisation, the filter and the metrics. */

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** Unbiased standard deviation (as torch's default); 0 for fewer than two values. */
export function std(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, v) => sum + (v - m) ** 2, 0) / (values.length - 1));
}

/** Indices of `keys` grouped by key, groups in order of first appearance. */
export function groupIndices<K>(keys: readonly K[]): Map<K, number[]> {
  const groups = new Map<K, number[]>();
  keys.forEach((key, i) => {
    const list = groups.get(key);
    if (list) list.push(i);
    else groups.set(key, [i]);
  });
  return groups;
}
