import { describe, expect, it } from 'vitest';
import { computeReinforcePlusPlus } from '../../trainer-core/algo/reinforce-plus-plus';
import { returnsToGo } from '../../trainer-core/algo/returns-to-go';

// Two episodes: row 0 has two turns (tokens 1-2 and 4-5, an observation at 3) with rewards at
// each turn's end; row 1 one turn and padding.
const rows = 2;
const cols = 7;
const mask = Float32Array.from([0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0]);
const rewards = Float32Array.from([0, 0, 0.5, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0]);

describe('returnsToGo', () => {
  it('sums the rewards still to come on every generated token, across the observations between turns', () => {
    expect([...returnsToGo({ rows, cols, rewards, mask }, 1)]).toEqual([0, 2.5, 2.5, 0, 2, 2, 0, 0, 1, 1, 1, 0, 0, 0]);
  });

  it('discounts once per generated token and is 0 off the mask', () => {
    const r = returnsToGo({ rows, cols, rewards, mask }, 0.5);
    // Token 5: 2; token 4: 0.5 * 2; token 2: 0.5 + 0.5 * 1 (the observation at 3 is skipped); token 1: 0.5 * 1.
    expect([...r.subarray(0, cols)]).toEqual([0, 0.5, 1, 0, 1, 2, 0]);
    expect([...r.subarray(cols)]).toEqual([0, 0.25, 0.5, 1, 0, 0, 0]);
  });

  it('is the returns REINFORCE++ whitens', () => {
    expect([...computeReinforcePlusPlus({ rows, cols, rewards, mask, gamma: 0.9 }).returns]).toEqual([...returnsToGo({ rows, cols, rewards, mask }, 0.9)]);
  });
});
