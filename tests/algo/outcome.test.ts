import { describe, expect, it } from 'vitest';
import { computeGrpo } from '../../trainer-core/algo/grpo';
import { computeReinforcePlusPlus, computeReinforcePlusPlusBaseline } from '../../trainer-core/algo/reinforce-plus-plus';
import { computeRloo } from '../../trainer-core/algo/rloo';
import { expectAllClose, f32 } from './helpers';

// Four sequences of three tokens; sequences 0-2 share group 'a', sequence 3 is alone in 'b'.
// Scores (summed rewards): 1, 0, 0.5, 2.
const batch = {
  rows: 4,
  cols: 3,
  rewards: f32([0, 0, 1, /**/ 0, 0, 0, /**/ 0, 0.25, 0.25, /**/ 2, 0, 0]),
  mask: f32([1, 1, 1, /**/ 1, 1, 0, /**/ 0, 1, 1, /**/ 1, 0, 0]),
  groupIds: ['a', 'a', 'a', 'b'],
};

describe('computeGrpo', () => {
  it('normalises by the group mean and unbiased std; a group of one gets mean 0, std 1', () => {
    const { advantages, returns } = computeGrpo(batch);
    // group a: mean .5, std sqrt((.25 + .25 + 0) / 2) = .5 -> +-.5 / (.5 + 1e-6); group b: 2 / (1 + 1e-6)
    const a = 0.5 / (0.5 + 1e-6);
    const b = 2 / (1 + 1e-6);
    expectAllClose(advantages, [a, a, a, -a, -a, 0, 0, 0, 0, b, 0, 0], 1e-6);
    expectAllClose(returns, advantages);
  });

  it('without std normalisation keeps only the mean baseline (Dr.GRPO)', () => {
    const { advantages } = computeGrpo({ ...batch, normByStd: false });
    expectAllClose(advantages, [0.5, 0.5, 0.5, -0.5, -0.5, 0, 0, 0, 0, 2, 0, 0]);
  });

  it('a group whose members all scored the same gets advantage 0, not NaN', () => {
    const { advantages } = computeGrpo({ rows: 2, cols: 1, rewards: f32([1, 1]), mask: f32([1, 1]), groupIds: [3, 3] });
    expectAllClose(advantages, [0, 0]);
  });

  it('needs one group id per sequence', () => {
    expect(() => computeGrpo({ ...batch, groupIds: ['a'] })).toThrow(/one group id per sequence/);
  });
});

describe('computeRloo', () => {
  it('subtracts the mean of the other group members; a lone sequence keeps its score', () => {
    const { advantages } = computeRloo(batch);
    // n = 3: 3/2 * (R - .5) -> .75, -.75, 0 (sequence 0: 1 - mean(0, .5) = .75)
    expectAllClose(advantages, [0.75, 0.75, 0.75, -0.75, -0.75, 0, 0, 0, 0, 2, 0, 0]);
  });
});

describe('computeReinforcePlusPlus', () => {
  it('discounts over generated tokens, jumping the observation gap, then whitens', () => {
    const { advantages, returns } = computeReinforcePlusPlus({ rows: 1, cols: 5, rewards: f32([0, 0.5, 0, 0, 1]), mask: f32([1, 1, 0, 1, 1]), gamma: 0.9 });
    // G4 = 1, G3 = .9, G1 = .5 + .81 = 1.31, G0 = .9 * 1.31 = 1.179
    expectAllClose(returns, [1.179, 1.31, 0, 0.9, 1]);
    // mean 4.389 / 4 = 1.09725; squared deviations sum to .10031075
    const s = Math.sqrt(0.10031075 / 3 + 1e-8);
    expectAllClose(advantages, [(1.179 - 1.09725) / s, (1.31 - 1.09725) / s, 0, (0.9 - 1.09725) / s, (1 - 1.09725) / s], 1e-5);
  });

  it('starts a fresh sum per sequence and ignores padding (gamma 1)', () => {
    const { returns } = computeReinforcePlusPlus({ rows: 2, cols: 4, rewards: f32([0, 0, 1, 0, 2, -1, 0, 0]), mask: f32([1, 1, 1, 0, 1, 1, 0, 0]) });
    expectAllClose(returns, [1, 1, 1, 0, 1, -1, 0, 0]);
  });
});

describe('computeReinforcePlusPlusBaseline', () => {
  it('subtracts the group mean, broadcasts, and whitens over the whole batch', () => {
    const { advantages } = computeReinforcePlusPlusBaseline(batch);
    // centred scores .5, -.5, 0, 2 over 3, 2, 2, 1 tokens: mean 2.5 / 8 = .3125,
    // squared deviations 3*.03515625 + 2*.66015625 + 2*.09765625 + 2.84765625 = 4.46875
    const s = Math.sqrt(4.46875 / 7 + 1e-8);
    const w = (x: number) => (x - 0.3125) / s;
    expectAllClose(advantages, [w(0.5), w(0.5), w(0.5), w(-0.5), w(-0.5), 0, 0, w(0), w(0), w(2), 0, 0], 1e-5);
  });
});
