import { describe, expect, it } from 'vitest';
import { learningRateAt, type LrScheduleOptions } from '../../trainer-core/algo/lr-schedule';

const base: LrScheduleOptions = { schedule: 'constant', lr: 1e-3, totalIterations: 100, warmupRatio: 0, minLrRatio: 0, numCycles: 0.5 };

describe('learning-rate schedules (verl: stepped once per iteration, iteration 1 at step 0)', () => {
  it('constant without warmup is the base rate at every iteration', () => {
    for (const it of [1, 50, 100]) expect(learningRateAt(it, base)).toBe(1e-3);
  });

  it('warms up linearly from 0 over warmupRatio x total iterations, then holds', () => {
    const o = { ...base, warmupRatio: 0.1 }; // 10 warmup steps
    expect(learningRateAt(1, o)).toBe(0);
    expect(learningRateAt(6, o)).toBeCloseTo(5e-4, 12);
    expect(learningRateAt(11, o)).toBe(1e-3);
    expect(learningRateAt(100, o)).toBe(1e-3);
  });

  it('cosine decays from lr at the first step to minLrRatio x lr at the end, half way at the middle', () => {
    const o = { ...base, schedule: 'cosine' as const, minLrRatio: 0.1 };
    expect(learningRateAt(1, o)).toBeCloseTo(1e-3, 12);
    // step 50 of 100: cos(pi / 2) = 0 -> 0.1 + 0.9 * 0.5 = 0.55
    expect(learningRateAt(51, o)).toBeCloseTo(0.55e-3, 12);
    // step 99: progress 0.99, 0.5 * (1 + cos(0.99 pi)) = 0.000246719...
    expect(learningRateAt(100, o)).toBeCloseTo(1e-3 * (0.1 + 0.9 * 0.5 * (1 + Math.cos(0.99 * Math.PI))), 12);
    expect(learningRateAt(100, o)).toBeGreaterThan(1e-4);
  });

  it('cosine after warmup counts progress from the end of the warmup', () => {
    const o = { ...base, schedule: 'cosine' as const, warmupRatio: 0.2 }; // 20 warmup, 80 decay steps
    expect(learningRateAt(21, o)).toBeCloseTo(1e-3, 12);
    expect(learningRateAt(61, o)).toBeCloseTo(0.5e-3, 12); // step 60: progress 40/80
  });

  it('one full cycle comes back to the base rate', () => {
    const o = { ...base, schedule: 'cosine' as const, numCycles: 1, totalIterations: 10 };
    expect(learningRateAt(6, o)).toBeCloseTo(0, 12); // progress 0.5 of a full period
    expect(learningRateAt(11, o)).toBeCloseTo(1e-3, 12); // past the end: progress held at 1
  });
});
