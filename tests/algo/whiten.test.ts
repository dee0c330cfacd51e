import { describe, expect, it } from 'vitest';
import { maskedCount, maskedMean, maskedVar, maskedWhiten } from '../../trainer-core/algo/whiten';
import { expectAllClose, f32 } from './helpers';

describe('masked statistics', () => {
  const x = f32([1, 2, 3, 100]);
  const mask = f32([1, 1, 1, 0]);

  it('ignores unmasked entries in mean and variance', () => {
    expect(maskedCount(mask)).toBe(3);
    expect(maskedMean(x, mask)).toBeCloseTo(2, 12);
    // unbiased: ((1-2)^2 + 0 + (3-2)^2) / (3 - 1) = 1; biased: 2 / 3
    expect(maskedVar(x, mask)).toBeCloseTo(1, 12);
    expect(maskedVar(x, mask, false)).toBeCloseTo(2 / 3, 12);
  });

  it('whitens masked entries and leaves the rest at 0', () => {
    const s = 1 / Math.sqrt(1 + 1e-8);
    expectAllClose(maskedWhiten(x, mask), [-s, 0, s, 0], 1e-7);
  });

  it('adds the mean back with shiftMean false', () => {
    const s = 1 / Math.sqrt(1 + 1e-8);
    expectAllClose(maskedWhiten(x, mask, { shiftMean: false }), [2 - s, 2, 2 + s, 0], 1e-6);
  });

  it('honours a custom epsilon', () => {
    // var 1, eps 3 -> scale 1/2
    expectAllClose(maskedWhiten(x, mask, { epsilon: 3 }), [-0.5, 0, 0.5, 0], 1e-7);
  });

  it('gives a lone token variance 0 and whitens it to 0', () => {
    expect(maskedVar(f32([5, 7]), f32([1, 0]))).toBe(0);
    expectAllClose(maskedWhiten(f32([5, 7]), f32([1, 0])), [0, 0]);
  });

  it('rejects an empty mask and mismatched lengths with clear errors', () => {
    expect(() => maskedMean(f32([1, 2]), f32([0, 0]))).toThrow(/selects no tokens/);
    expect(() => maskedWhiten(f32([1, 2]), f32([1]))).toThrow(/must match/);
  });
});
