// Where a value falls in an ascending list: the plot reads a metric x axis between the
// iterations it was logged at, and the tooltip finds each line's point nearest the cursor.

/** The indices of the neighbours of `x` in ascending `xs` (equal when `x` is one of them); null outside them. */
export function bracket(xs: readonly number[], x: number): [number, number] | null {
  if (xs.length === 0 || x < xs[0] || x > xs[xs.length - 1]) return null;
  let lo = 0;
  let hi = xs.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid;
    else hi = mid;
  }
  return xs[lo] === x ? [lo, lo] : xs[hi] === x ? [hi, hi] : [lo, hi];
}

/** The index of the element of ascending `xs` nearest to `x`; -1 outside them. */
export function nearestIndex(xs: readonly number[], x: number): number {
  const at = bracket(xs, x);
  if (!at) return -1;
  const [lo, hi] = at;
  return x - xs[lo] <= xs[hi] - x ? lo : hi;
}
