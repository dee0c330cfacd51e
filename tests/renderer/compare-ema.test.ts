import { describe, expect, it } from 'vitest';
import { emaSmooth } from '../../renderer/src/compare/ema';

describe('emaSmooth (debiased, as TensorBoard)', () => {
  it('leaves values untouched at weight 0', () => {
    expect(emaSmooth([1, null, 3], 0)).toEqual([1, null, 3]);
  });

  it('starts at the first value instead of being dragged towards zero', () => {
    const out = emaSmooth([10, 10, 10, 10], 0.9);
    for (const v of out) expect(v).toBeCloseTo(10, 10);
  });

  it('matches the debiased formula step by step', () => {
    const w = 0.6;
    const out = emaSmooth([1, 2, 4], w);
    let last = 0;
    const expected = [1, 2, 4].map((v, i) => {
      last = last * w + (1 - w) * v;
      return last / (1 - w ** (i + 1));
    });
    out.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 12));
    // A smoothed step lags behind the raw one.
    expect(out[2]!).toBeLessThan(4);
    expect(out[2]!).toBeGreaterThan(2);
  });

  it('keeps gaps as gaps and does not let them enter the average', () => {
    const out = emaSmooth([2, null, 2], 0.5);
    expect(out[1]).toBeNull();
    expect(out[2]).toBeCloseTo(2, 12);
  });

  it('refuses a weight outside [0, 1)', () => {
    expect(() => emaSmooth([1], 1)).toThrow(/\[0, 1\)/);
    expect(() => emaSmooth([1], -0.1)).toThrow(RangeError);
  });
});
