import { describe, expect, it } from 'vitest';
import { deriveSeed, Rng } from '../../trainer-core/rng';

describe('Rng', () => {
  it('gives the same sequence for the same seed and different ones for different seeds', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const c = new Rng(43);
    const seqA = Array.from({ length: 20 }, () => a.nextU32());
    expect(Array.from({ length: 20 }, () => b.nextU32())).toEqual(seqA);
    expect(Array.from({ length: 20 }, () => c.nextU32())).not.toEqual(seqA);
  });

  it('resumes exactly from a saved state', () => {
    const rng = new Rng(7);
    for (let i = 0; i < 13; i++) rng.next();
    const saved = rng.state();
    const expected = Array.from({ length: 10 }, () => rng.next());
    const restored = Rng.fromState(saved);
    expect(Array.from({ length: 10 }, () => restored.next())).toEqual(expected);
  });

  it('draws uniform integers without bias across the range', () => {
    const rng = new Rng(1);
    const counts = new Array(4).fill(0);
    const n = 40_000;
    for (let i = 0; i < n; i++) counts[rng.int(4)]++;
    for (const c of counts) expect(Math.abs(c / n - 0.25)).toBeLessThan(0.01);
  });

  it('keeps floats in [0, 1) and normals near mean 0 and variance 1', () => {
    const rng = new Rng(3);
    let sum = 0;
    let sq = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const u = rng.next();
      expect(u).toBeGreaterThanOrEqual(0);
      expect(u).toBeLessThan(1);
      const z = rng.normal();
      sum += z;
      sq += z * z;
    }
    expect(Math.abs(sum / n)).toBeLessThan(0.03);
    expect(Math.abs(sq / n - 1)).toBeLessThan(0.05);
  });

  it('shuffles to a permutation and rejects bad ranges', () => {
    const rng = new Rng(9);
    const items = [1, 2, 3, 4, 5, 6];
    expect([...rng.shuffle([...items])].sort()).toEqual(items);
    expect(() => rng.int(0)).toThrow(/positive integer/);
    expect(() => rng.choice([])).toThrow(/empty/);
  });

  it('derives distinct, stable stream seeds', () => {
    expect(deriveSeed(5, 'map')).toBe(deriveSeed(5, 'map'));
    expect(deriveSeed(5, 'map')).not.toBe(deriveSeed(5, 'slip'));
    expect(deriveSeed(5, 'map', 1)).not.toBe(deriveSeed(5, 'map', 2));
  });
});
