/**
 * Seeded random numbers for everything in TurnLab (env generation, seed schedules, sampling,
 * initialisation). xoshiro128** on four 32-bit words: fast in JS, and its state is four numbers,
 * so checkpoints can save and restore it exactly.
 */
export type RngState = [number, number, number, number];

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Mixes a seed with stream names/numbers so independent streams never share a sequence. */
export function deriveSeed(seed: number, ...keys: Array<string | number>): number {
  let h = (seed >>> 0) ^ 0x811c9dc5;
  for (const key of keys) {
    const text = String(key);
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
    h = Math.imul(h ^ 0xff, 0x01000193) >>> 0;
  }
  return splitmix32(h)();
}

export class Rng {
  private s: Uint32Array;

  constructor(seed: number) {
    const next = splitmix32(seed);
    this.s = new Uint32Array([next(), next(), next(), next()]);
    if (this.s.every((w) => w === 0)) this.s[0] = 1;
  }

  static fromState(state: RngState): Rng {
    const rng = new Rng(0);
    rng.s = new Uint32Array(state);
    return rng;
  }

  state(): RngState {
    return [this.s[0], this.s[1], this.s[2], this.s[3]];
  }

  /** Next raw 32-bit unsigned integer. */
  nextU32(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** Uniform in [0, 1) with 53 bits of precision. */
  next(): number {
    const hi = this.nextU32() >>> 5;
    const lo = this.nextU32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0) throw new RangeError(`Rng.int needs a positive integer, got ${n}`);
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [lo, hi] inclusive. */
  intBetween(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  choice<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.choice on an empty list');
    return items[this.int(items.length)];
  }

  /** Fisher-Yates, in place; returns the same array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    let u = 0;
    while (u === 0) u = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
