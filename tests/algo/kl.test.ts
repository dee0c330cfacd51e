import { describe, expect, it } from 'vitest';
import { applyKlPenalty, klEstimate, needsReference, parseKlType } from '../../trainer-core/algo/kl';
import { expectAllClose, f32 } from './helpers';

describe('klEstimate', () => {
  it('computes k1, abs, k2 and k3 from d = logp - refLogp', () => {
    // d = .5
    expect(klEstimate(-1, -1.5, 'kl')).toBeCloseTo(0.5, 12);
    expect(klEstimate(-1, -1.5, 'k1')).toBeCloseTo(0.5, 12);
    expect(klEstimate(-1, -1.5, 'abs')).toBeCloseTo(0.5, 12);
    expect(klEstimate(-1, -1.5, 'mse')).toBeCloseTo(0.125, 12);
    expect(klEstimate(-1, -1.5, 'k2')).toBeCloseTo(0.125, 12);
    expect(klEstimate(-1, -1.5, 'low_var_kl')).toBeCloseTo(0.60653066 + 0.5 - 1, 8);
    // d = -.5
    expect(klEstimate(-1.5, -1, 'k1')).toBeCloseTo(-0.5, 12);
    expect(klEstimate(-1.5, -1, 'abs')).toBeCloseTo(0.5, 12);
    expect(klEstimate(-1.5, -1, 'k2')).toBeCloseTo(0.125, 12);
    expect(klEstimate(-1.5, -1, 'k3')).toBeCloseTo(1.64872127 - 0.5 - 1, 8);
  });

  it('k3 is 0 at d = 0 and clamped to [-10, 10]', () => {
    expect(klEstimate(-2, -2, 'k3')).toBe(0);
    expect(klEstimate(-40, -10, 'k3')).toBe(10); // exp(30) - 31 would be huge
    expect(klEstimate(-10, -40, 'k3')).toBe(10); // exp(-30) + 29 -> clamped
  });

  it('rejects unknown estimator names', () => {
    expect(() => parseKlType('full')).toThrow(/unknown KL estimator 'full'/);
  });
});

describe('applyKlPenalty', () => {
  it('subtracts beta * KL on generated tokens and reports the mean of per-sequence KL means', () => {
    const refLogp = f32([-1, -1, -1, -1, -1, -1]);
    const logp = f32([-0.8, -0.6, 4, -0.4, -1, -1]); // d = .2, .4, (5 unmasked) | .6, 0, 0
    const mask = f32([1, 1, 0, 1, 0, 0]);
    const rewards = f32([0, 1, 0, 0.5, 0, 0]);
    const out = applyKlPenalty({ rows: 2, cols: 3, rewards, logp, refLogp, mask, beta: 0.1, type: 'k1' });
    expectAllClose(out.rewards, [-0.02, 0.96, 0, 0.44, 0, 0]);
    expect(out.meanKl).toBeCloseTo((0.3 + 0.6) / 2, 6);
    expectAllClose(rewards, [0, 1, 0, 0.5, 0, 0]); // input untouched
  });

  it('leaves sequences without generated tokens out of the mean KL', () => {
    const out = applyKlPenalty({ rows: 2, cols: 1, rewards: f32([0, 0]), logp: f32([-1, 5]), refLogp: f32([-2, -2]), mask: f32([1, 0]), beta: 1, type: 'abs' });
    expect(out.meanKl).toBeCloseTo(1, 6);
  });
});

describe('needsReference', () => {
  it('is true only when a KL term is on with a nonzero coefficient', () => {
    expect(needsReference({})).toBe(false);
    expect(needsReference({ useKlInReward: true })).toBe(true);
    expect(needsReference({ useKlInReward: true, klCoef: 0 })).toBe(false);
    expect(needsReference({ useKlLoss: true, klLossCoef: 0.001 })).toBe(true);
    expect(needsReference({ useKlLoss: false, klLossCoef: 0.001, useKlInReward: false, klCoef: 0.001 })).toBe(false);
  });
});
