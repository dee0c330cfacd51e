// Exponential moving average as TensorBoard and W&B draw it: the running average starts at zero
// and is divided by (1 - weight^k), so the first points are not dragged towards zero.

/**
 * Smooths `values` with weight `weight` in [0, 1): 0 leaves them as they are, 0.99 smooths
 * heavily. A null (a NaN in the store) stays null and does not enter the average, so one bad
 * step neither vanishes nor poisons every later point.
 */
export function emaSmooth(values: ReadonlyArray<number | null>, weight: number): Array<number | null> {
  if (!(weight >= 0 && weight < 1)) {
    throw new RangeError(`smoothing weight must be in [0, 1), got ${weight}`);
  }
  if (weight === 0) return values.slice();
  let last = 0;
  let count = 0;
  return values.map((value) => {
    if (value === null || !Number.isFinite(value)) return value === null ? null : value;
    last = last * weight + (1 - weight) * value;
    count += 1;
    return last / (1 - weight ** count);
  });
}
