import { describe, expect, it } from 'vitest';
import { centerAdvantagesByToken } from '../../trainer-core/algo/token-centering';

describe('centerAdvantagesByToken', () => {
  it("subtracts from each trained token's advantage the batch mean of its token id, and leaves untrained positions at 0", () => {
    // Two rows of four positions; token 7 is a move, 9 the closing tag, 1 prompt (untrained).
    const tokens = [
      [1, 7, 9, 1],
      [1, 7, 9, 8],
    ];
    const mask = new Float32Array([0, 1, 1, 0, 0, 1, 1, 1]);
    const advantages = new Float32Array([5, 2, 2, 5, 5, -1, -1, 3]);
    const out = centerAdvantagesByToken({ rows: 2, cols: 4, mask, tokens, advantages });
    // Token 7: mean (2 - 1) / 2 = 0.5; token 9 the same; token 8 seen once, so it centres to 0.
    expect([...out]).toEqual([0, 1.5, 1.5, 0, 0, -1.5, -1.5, 0]);
  });

  it('makes the advantages of every token id sum to zero, so no id gains or loses on every input at once', () => {
    const tokens = [
      [3, 4, 3, 4, 5],
      [4, 4, 3, 5, 5],
      [3, 3, 3, 4, 4],
    ];
    const mask = new Float32Array(15).fill(1);
    const advantages = Float32Array.from({ length: 15 }, (_, i) => Math.sin(i + 1) * 3);
    const out = centerAdvantagesByToken({ rows: 3, cols: 5, mask, tokens, advantages });
    for (const id of [3, 4, 5]) {
      const sum = tokens.flat().reduce((s, t, i) => (t === id ? s + out[i] : s), 0);
      expect(sum).toBeCloseTo(0, 5);
    }
  });

  it('with perRowMean, weighs each token by one over its row\'s trained tokens, as seq-mean-token-mean does', () => {
    // Row 0 trains one token 7 (weight 1), row 1 trains 7 twice and 9 once (weight 1/3 each).
    const tokens = [
      [7, 0, 0],
      [7, 7, 9],
    ];
    const mask = new Float32Array([1, 0, 0, 1, 1, 1]);
    const advantages = new Float32Array([4, 0, 0, 1, 1, 2]);
    const out = centerAdvantagesByToken({ rows: 2, cols: 3, mask, tokens, advantages, perRowMean: true });
    // Token 7's weighted mean: (4 x 1 + 1 x 1/3 + 1 x 1/3) / (1 + 2/3) = 2.8.
    expect(out[0]).toBeCloseTo(1.2, 6);
    expect(out[3]).toBeCloseTo(-1.8, 6);
    expect(out[5]).toBeCloseTo(0, 6);
    const weighted = out[0] * 1 + (out[3] + out[4]) / 3;
    expect(weighted).toBeCloseTo(0, 6);
  });

  it('with priorCount, shrinks each mean towards 0 by count / (count + priorCount), so a token seen once keeps most of its advantage', () => {
    // Token 7 (a move) is seen four times, token 8 (a malformed reply's) once, with a format penalty.
    const tokens = [[7, 7, 7, 7, 8]];
    const mask = new Float32Array(5).fill(1);
    const advantages = new Float32Array([1, 1, -1, 3, -2]);
    const out = centerAdvantagesByToken({ rows: 1, cols: 5, mask, tokens, advantages, priorCount: 1 });
    // Token 7: mean 1, shrunk by 4 / 5 to 0.8; token 8: mean -2, shrunk by 1 / 2 to -1.
    expect(out[0]).toBeCloseTo(0.2, 6);
    expect(out[2]).toBeCloseTo(-1.8, 6);
    expect(out[4]).toBeCloseTo(-1, 6);
    const plain = centerAdvantagesByToken({ rows: 1, cols: 5, mask, tokens, advantages });
    expect(plain[4]).toBe(0);
    expect(() => centerAdvantagesByToken({ rows: 1, cols: 5, mask, tokens, advantages, priorCount: -1 })).toThrow(/priorCount/);
  });

  it('refuses token rows that do not match the grid', () => {
    expect(() => centerAdvantagesByToken({ rows: 2, cols: 2, mask: new Float32Array(4).fill(1), tokens: [[1, 2]], advantages: new Float32Array(4) })).toThrow(/one token list per row/);
  });
});
