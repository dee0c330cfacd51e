import { describe, expect, it } from 'vitest';
import { formatGain, meanSuccessGain, pairedSuccessGain } from '../../bench/lib/success-gain';

describe('the learning bench gain arithmetic', () => {
  it('pairs the episodes: gain and standard error of the per-episode differences', () => {
    // d = after - warm: [+1, 0, 0, -1, +1, 0, 0, 0]: mean 1/8; sample variance
    // (2 * (7/8)^2 + (9/8)^2 + 5 * (1/8)^2) / 7 = (98 + 81 + 5) / 64 / 7 = 184 / 448; se = sqrt(184 / 448 / 8)
    const warm = [false, true, true, true, false, false, true, false];
    const after = [true, true, true, false, true, false, true, false];
    const g = pairedSuccessGain(warm, after);
    expect(g.warm).toBe(0.5);
    expect(g.after).toBe(0.625);
    expect(g.gain).toBeCloseTo(0.125, 12);
    expect(g.se).toBeCloseTo(Math.sqrt(184 / 448 / 8), 12);
    expect(g.n).toBe(8);
  });

  it('gives no error to two policies that agree on every episode', () => {
    const same = [true, false, true, true];
    expect(pairedSuccessGain(same, same)).toMatchObject({ gain: 0, se: 0 });
  });

  it('reads the paired error far below the unpaired one when the policies mostly agree', () => {
    // 1024 episodes, 850 solved by both, 40 more after RL only: gain 40/1024 = 0.039.
    const warm = Array.from({ length: 1024 }, (_, i) => i < 850);
    const after = Array.from({ length: 1024 }, (_, i) => i < 890);
    const g = pairedSuccessGain(warm, after);
    expect(g.gain).toBeCloseTo(40 / 1024, 12);
    const unpaired = Math.sqrt((g.warm * (1 - g.warm) + g.after * (1 - g.after)) / 1024);
    expect(g.se).toBeLessThan(unpaired / 2);
    expect(g.se).toBeCloseTo(0.0061, 4);
  });

  it('averages seeds with the spread of their gains as the standard error', () => {
    const seeds = [0.02, 0.05, 0.08].map((gain, i) => ({ warm: 0.8, after: 0.8 + gain, gain, se: 0.01, n: 1024 + i }));
    const m = meanSuccessGain(seeds);
    expect(m.gain).toBeCloseTo(0.05, 12);
    // sd of [0.02, 0.05, 0.08] is 0.03; / sqrt(3)
    expect(m.se).toBeCloseTo(0.03 / Math.sqrt(3), 12);
    expect(m.n).toBe(3);
    expect(meanSuccessGain([seeds[1]])).toMatchObject({ gain: 0.05, se: 0.01, n: 1 });
  });

  it('refuses unpaired or too few episodes, and prints the sign', () => {
    expect(() => pairedSuccessGain([true], [true, false])).toThrow(/paired episodes differ in number/);
    expect(() => pairedSuccessGain([true], [false])).toThrow(/at least 2 episodes/);
    expect(() => meanSuccessGain([])).toThrow(/no seeds/);
    expect(formatGain({ warm: 0.8, after: 0.79, gain: -0.0123, se: 0.0061, n: 1024 })).toBe('-0.012 ± 0.006');
    expect(formatGain({ warm: 0.8, after: 0.84, gain: 0.04, se: 0.0061, n: 1024 })).toBe('+0.040 ± 0.006');
  });
});
