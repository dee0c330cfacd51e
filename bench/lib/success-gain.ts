/**
 * What RL added to a warm start, on held-out episodes that both policies played (the same start
 * states, in the same order): the gain in success and its standard error. The pairing matters:
 * most episodes are solved by both policies or by neither, so the difference per episode varies
 * far less than either success does, and the paired standard error is the honest, smaller one.
 */

export interface SuccessGain {
  /** Success of the warm start alone. */
  warm: number;
  /** Success after RL. */
  after: number;
  gain: number;
  /** Standard error of the gain. */
  se: number;
  /** Episodes (one seed) or seeds (a mean over seeds) behind the figure. */
  n: number;
}

/** The gain on paired episodes: mean of after_i - warm_i, standard error sd(d) / sqrt(n). */
export function pairedSuccessGain(warm: readonly boolean[], after: readonly boolean[]): SuccessGain {
  if (warm.length !== after.length) throw new RangeError(`paired episodes differ in number: ${warm.length} for the warm start, ${after.length} after RL`);
  const n = warm.length;
  if (n < 2) throw new RangeError(`a standard error needs at least 2 episodes (got ${n})`);
  const d = warm.map((w, i) => Number(after[i]) - Number(w));
  const gain = mean(d);
  return { warm: mean(warm.map(Number)), after: mean(after.map(Number)), gain, se: Math.sqrt(sampleVariance(d, gain) / n), n };
}

/**
 * The mean over seeds. Its standard error is the spread of the seeds' gains, sd / sqrt(k), which
 * holds both the training's seed-to-seed variation and each evaluation's noise; with one seed
 * there is no spread to read and that seed's own (evaluation) standard error stands.
 */
export function meanSuccessGain(perSeed: readonly SuccessGain[]): SuccessGain {
  const k = perSeed.length;
  if (k === 0) throw new RangeError('no seeds to average');
  if (k === 1) return { ...perSeed[0], n: 1 };
  const gains = perSeed.map((g) => g.gain);
  const gain = mean(gains);
  return { warm: mean(perSeed.map((g) => g.warm)), after: mean(perSeed.map((g) => g.after)), gain, se: Math.sqrt(sampleVariance(gains, gain) / k), n: k };
}

/** `+0.041 ± 0.012`, signed so that a loss reads as one. */
export function formatGain(g: SuccessGain): string {
  const sign = g.gain > 0 ? '+' : g.gain < 0 ? '-' : '';
  return `${sign}${Math.abs(g.gain).toFixed(3)} ± ${g.se.toFixed(3)}`;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function sampleVariance(xs: readonly number[], m: number): number {
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
}
