/**
 * Learning-rate schedules as verl steps them: once per training iteration, after the update,
 * so iteration 1 trains at step 0. A linear warmup over the first `warmupRatio` of the
 * iterations (from 0, as HuggingFace's schedules start), then either a constant rate or a
 * cosine decay towards `minLrRatio` of the base rate.
 */

export interface LrScheduleOptions {
  schedule: 'constant' | 'cosine';
  /** The base learning rate. */
  lr: number;
  totalIterations: number;
  /** Fraction of the iterations spent warming up linearly. */
  warmupRatio: number;
  /** Cosine: the floor, as a fraction of `lr`. */
  minLrRatio: number;
  /** Cosine: 0.5 decays once from `lr` to the floor; 1 comes back up by the end. */
  numCycles: number;
}

/** The learning rate for 1-based training iteration `iteration`. */
export function learningRateAt(iteration: number, o: LrScheduleOptions): number {
  const step = iteration - 1;
  const warmupSteps = Math.floor(o.warmupRatio * o.totalIterations);
  if (step < warmupSteps) return (o.lr * step) / Math.max(1, warmupSteps);
  if (o.schedule === 'constant') return o.lr;
  const progress = Math.min(1, (step - warmupSteps) / Math.max(1, o.totalIterations - warmupSteps));
  const cosine = 0.5 * (1 + Math.cos(2 * Math.PI * o.numCycles * progress));
  return o.lr * (o.minLrRatio + (1 - o.minLrRatio) * cosine);
}
