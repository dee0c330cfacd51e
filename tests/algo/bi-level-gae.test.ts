import { describe, expect, it } from 'vitest';
import { computeBiLevelGae } from '../../trainer-core/algo/bi-level-gae';
import { computeGae } from '../../trainer-core/algo/gae';
import { Rng } from '../../trainer-core/rng';
import { expectAllClose, f32 } from './helpers';

describe('computeBiLevelGae', () => {
  // Turn 1 = tokens 0-1 (ends at 1), observation at 2, turn 2 = tokens 3-4 (ends at 4), padding at 5.
  const mask = f32([1, 1, 0, 1, 1, 0]);
  const values = f32([0.2, 0.3, 0, 0.4, 0.5, 0]);
  const turnEnds = [[1, 4]];

  it('treats a turn whose reward is exactly 0 as a boundary (turn ends come from the rollout)', () => {
    const rewards = f32([0, 0, 0, 0, 1, 0]); // turn 1 scored 0, turn 2 scored 1
    const { advantages, returns } = computeBiLevelGae({ rows: 1, cols: 6, rewards, values, mask, turnEnds, highLevelGamma: 0.9, whiten: false });
    // Turn level (high gamma .9): turn 2: 1 - .5 = .5; turn 1: 0 + .9*.5 - .3 + .9*.5 = .6.
    // Turn-end rewards become turn returns: r'[4] = 1.0, r'[1] = .9.
    // Token level (gamma 1): t4 = 1 - .5 = .5; t3 = .5 - .4 + .5 = .6; t1 restarts: .9 - .3 = .6; t0 = .3 - .2 + .6 = .7
    expectAllClose(advantages, [0.7, 0.6, 0, 0.6, 0.5, 0]);
    expectAllClose(returns, [0.9, 0.9, 0, 1.0, 1.0, 0]);
    // Boundaries found from nonzero rewards (RAGEN) would see only token 4 and chain turn 1 into
    // turn 2 with gamma = 1, giving turn 1 a return of 1.0 instead of the high-gamma-discounted .9.
    expect(returns[1]).not.toBeCloseTo(1.0, 3);
  });

  it('keeps the rollout boundaries when a KL penalty makes every token reward nonzero', () => {
    const rewards = f32([-0.01, -0.01, 0, -0.01, 0.99, 0]);
    const { advantages, returns } = computeBiLevelGae({ rows: 1, cols: 6, rewards, values, mask, turnEnds, highLevelGamma: 0.9, whiten: false });
    // Turn level: turn 2: .99 - .5 = .49; turn 1: -.01 + .9*.5 - .3 + .9*.49 = .581 -> r'[4] = .99, r'[1] = .881
    // Token level: t4 = .49; t3 = -.01 + .5 - .4 + .49 = .58; t1 = .881 - .3 = .581; t0 = -.01 + .3 - .2 + .581 = .671
    expectAllClose(advantages, [0.671, 0.581, 0, 0.58, 0.49, 0]);
    expectAllClose(returns, [0.871, 0.881, 0, 0.98, 0.99, 0]);
  });

  it('uses gamma inside turns and lambda at both levels (gamma .9, lambda .8, high gamma .5)', () => {
    const rewards = f32([0, 0.5, 0, 0, 1, 0]);
    const { advantages, returns } = computeBiLevelGae({ rows: 1, cols: 6, rewards, values, mask, turnEnds, gamma: 0.9, lambda: 0.8, highLevelGamma: 0.5, whiten: false });
    // Turn level: turn 2: g = 1 - .5 = .5; turn 1: delta = .5 + .5*.5 - .3 = .45, g = .45 + .5*.8*.5 = .65
    // r'[4] = 1.0, r'[1] = .95
    // Token level: t4 = 1 - .5 = .5; t3: delta = .9*.5 - .4 = .05, A = .05 + .72*.5 = .41;
    // t1 restarts: .95 - .3 = .65; t0: delta = .9*.3 - .2 = .07, A = .07 + .72*.65 = .538
    expectAllClose(advantages, [0.538, 0.65, 0, 0.41, 0.5, 0]);
    expectAllClose(returns, [0.738, 0.95, 0, 0.81, 1.0, 0]);
  });

  it('equals plain GAE when all discounts are 1 and rewards sit only on turn ends', () => {
    const rng = new Rng(7);
    const rows = 3;
    const cols = 8;
    const m = f32([1, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    const ends = [[1, 5], [0, 3, 5], [2, 7]];
    const r = new Float32Array(rows * cols);
    ends.forEach((e, b) => e.forEach((p) => (r[b * cols + p] = Math.round(rng.normal() * 100) / 100)));
    const v = Float32Array.from({ length: rows * cols }, () => rng.next());
    const bi = computeBiLevelGae({ rows, cols, rewards: r, values: v, mask: m, turnEnds: ends, highLevelGamma: 1 });
    const plain = computeGae({ rows, cols, rewards: r, values: v, mask: m });
    expectAllClose(bi.advantages, plain.advantages, 1e-5);
    expectAllClose(bi.returns, plain.returns, 1e-5);
  });

  it('bootstraps 0 after a truncated last turn that has no turn end', () => {
    // turn end at 1 only; tokens 3-4 were generated but the turn never finished
    const { returns } = computeBiLevelGae({ rows: 1, cols: 6, rewards: f32([0, 1, 0, 0, 0, 0]), values, mask, turnEnds: [[1]], highLevelGamma: 0.9, whiten: false });
    // t4 bootstraps 0: A = -.5, R = 0; t3: A = .5 - .4 - .5 = -.4, R = 0 (no reward follows);
    // turn 1 is the only turn: r'[1] = 1, so R1 = R0 = 1
    expectAllClose(returns, [1, 1, 0, 0, 0, 0]);
  });

  it('rejects turn ends that are not generated tokens, not ascending, or out of range', () => {
    const base = { rows: 1, cols: 6, rewards: f32([0, 0, 0, 0, 1, 0]), values, mask };
    expect(() => computeBiLevelGae({ ...base, turnEnds: [[2, 4]] })).toThrow(/position 2, which is not a generated token/);
    expect(() => computeBiLevelGae({ ...base, turnEnds: [[4, 1]] })).toThrow(/strictly ascending/);
    expect(() => computeBiLevelGae({ ...base, turnEnds: [[1, 6]] })).toThrow(/not a position in 0..5/);
    expect(() => computeBiLevelGae({ ...base, turnEnds: [] })).toThrow(/one list per sequence/);
  });
});
