import { describe, expect, it } from 'vitest';
import { computeGae } from '../../trainer-core/algo/gae';
import { expectAllClose, f32 } from './helpers';

describe('computeGae', () => {
  // Two turns: generated tokens 0-1, an observation token at 2, generated tokens 3-4.
  // The observation token's value (9) must never be used as a bootstrap.
  const mask = f32([1, 1, 0, 1, 1]);
  const values = f32([0.5, 0.6, 9, 0.7, 0.8]);

  it('gamma = lambda = 1: A_t = (sum of later rewards) - V_t, skipping the observation gap', () => {
    const { advantages, returns } = computeGae({ rows: 1, cols: 5, rewards: f32([0, 0, 0, 0, 1]), values, mask, whiten: false });
    expectAllClose(advantages, [0.5, 0.4, 0, 0.3, 0.2]);
    expectAllClose(returns, [1, 1, 0, 1, 1]);
  });

  it('gamma = 0.9, lambda = 0.8, two sequences, hand-worked backwards', () => {
    const rewards = f32([0, 0.5, 0, 0, 1, /* row 2 */ 0, 0, 2, 0, 0]);
    const vals = f32([0.5, 0.6, 9, 0.7, 0.8, /* row 2 */ 1, 1, 1, 0, 0]);
    const m = f32([1, 1, 0, 1, 1, /* row 2: padding after the response */ 1, 1, 1, 0, 0]);
    const { advantages, returns } = computeGae({ rows: 2, cols: 5, rewards, values: vals, mask: m, gamma: 0.9, lambda: 0.8, whiten: false });
    // row 1: t4 delta = 1 - .8 = .2; t3 delta = .9*.8 - .7 = .02, A = .02 + .72*.2 = .164;
    // t1 (next masked is t3) delta = .5 + .9*.7 - .6 = .53, A = .53 + .72*.164 = .64808;
    // t0 delta = .9*.6 - .5 = .04, A = .04 + .72*.64808 = .5066176
    // row 2: t2 delta = 2 - 1 = 1; t1 delta = .9 - 1 = -.1, A = -.1 + .72 = .62; t0 A = -.1 + .72*.62 = .3464
    expectAllClose(advantages, [0.5066176, 0.64808, 0, 0.164, 0.2, 0.3464, 0.62, 1, 0, 0]);
    expectAllClose(returns, [1.0066176, 1.24808, 0, 0.864, 1.0, 1.3464, 1.62, 2, 0, 0]);
  });

  it('whitens the advantages over generated tokens by default', () => {
    const { advantages } = computeGae({ rows: 1, cols: 5, rewards: f32([0, 0, 0, 0, 1]), values, mask });
    // raw [.5, .4, .3, .2]: mean .35, unbiased var .05 / 3
    const s = Math.sqrt(0.05 / 3 + 1e-8);
    expectAllClose(advantages, [0.15 / s, 0.05 / s, 0, -0.05 / s, -0.15 / s]);
  });

  it('refuses a reward placed on an unmasked token instead of silently dropping it', () => {
    expect(() => computeGae({ rows: 1, cols: 5, rewards: f32([0, 0, 1, 0, 0]), values, mask })).toThrow(/sequence 0, position 2 sits on a token with mask 0/);
  });

  it('checks shapes, masks and discounts', () => {
    expect(() => computeGae({ rows: 2, cols: 5, rewards: f32([0, 0, 0, 0, 1]), values, mask })).toThrow(/2 x 5 = 10/);
    expect(() => computeGae({ rows: 1, cols: 5, rewards: f32([0, 0, 0, 0, 1]), values, mask: f32([1, 1, 0.5, 1, 1]) })).toThrow(/only 0 and 1/);
    expect(() => computeGae({ rows: 1, cols: 5, rewards: f32([0, 0, 0, 0, 1]), values, mask, gamma: 1.5 })).toThrow(/gamma must be/);
  });
});
