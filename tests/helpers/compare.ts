/** max |a - b| over max |b|: an error relative to the reference's scale, not to each (maybe tiny) value. */
export function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < b.length; i++) {
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return diff / scale;
}
