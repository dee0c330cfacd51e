/**
 * Masked statistics over flattened token arrays. Sums run in float64 (JS numbers) so that large
 * batches do not lose precision the way a float32 reduction would.
 */

function checkSameLength(x: ArrayLike<number>, mask: ArrayLike<number>): void {
  if (x.length !== mask.length) {
    throw new RangeError(`values have ${x.length} entries but the mask has ${mask.length}; they must match`);
  }
}

export function maskedCount(mask: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < mask.length; i++) n += mask[i];
  return n;
}

/** Mean of x over positions where mask is 1. Throws when the mask selects nothing. */
export function maskedMean(x: ArrayLike<number>, mask: ArrayLike<number>): number {
  checkSameLength(x, mask);
  let sum = 0;
  let n = 0;
  for (let i = 0; i < x.length; i++) {
    sum += x[i] * mask[i];
    n += mask[i];
  }
  if (n === 0) throw new RangeError('the mask selects no tokens (the batch holds no generated tokens), so there is nothing to average or whiten');
  return sum / n;
}

/**
 * Variance of x over masked positions, unbiased (Bessel-corrected) by default as in verl. With a
 * single selected token the unbiased variance is undefined; we return 0 there instead of
 * throwing, because every caller only whitens with it and a lone token whitens to 0 anyway.
 */
export function maskedVar(x: ArrayLike<number>, mask: ArrayLike<number>, unbiased = true): number {
  const mean = maskedMean(x, mask);
  let sq = 0;
  let n = 0;
  for (let i = 0; i < x.length; i++) {
    const d = x[i] - mean;
    sq += d * d * mask[i];
    n += mask[i];
  }
  if (!unbiased) return sq / n;
  return n > 1 ? sq / (n - 1) : 0;
}

export interface WhitenOptions {
  /** false adds the mean back after scaling (verl `shift_mean=False`). Default true. */
  shiftMean?: boolean;
  /** Added to the variance before the square root. Default 1e-8. */
  epsilon?: number;
}

/** (x - mean) / sqrt(var + eps) over masked positions; unmasked positions come back as 0. */
export function maskedWhiten(x: ArrayLike<number>, mask: ArrayLike<number>, options: WhitenOptions = {}): Float32Array {
  const { shiftMean = true, epsilon = 1e-8 } = options;
  const mean = maskedMean(x, mask);
  const scale = 1 / Math.sqrt(maskedVar(x, mask) + epsilon);
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    if (mask[i] === 0) continue;
    out[i] = (x[i] - mean) * scale + (shiftMean ? 0 : mean);
  }
  return out;
}
