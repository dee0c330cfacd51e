import { describe, expect, it } from 'vitest';
import { ADV_ESTIMATORS, computeAdvantages, needsCritic, needsGroups, parseAdvEstimator } from '../../trainer-core/algo/advantages';
import { computeBiLevelGae } from '../../trainer-core/algo/bi-level-gae';
import { computeGae } from '../../trainer-core/algo/gae';
import { computeGigpo } from '../../trainer-core/algo/gigpo';
import { computeGrpo } from '../../trainer-core/algo/grpo';
import { computeReinforcePlusPlus, computeReinforcePlusPlusBaseline } from '../../trainer-core/algo/reinforce-plus-plus';
import { computeRloo } from '../../trainer-core/algo/rloo';
import { expectAllClose, f32 } from './helpers';

const batch = {
  rows: 2,
  cols: 4,
  rewards: f32([0, 0.5, 0, 1, 0, 0, 2, 0]),
  mask: f32([1, 1, 0, 1, 1, 1, 1, 0]),
  values: f32([0.1, 0.2, 0, 0.3, 0.4, 0.5, 0.6, 0]),
  turnEnds: [[1, 3], [2]],
  groupIds: ['g', 'g'],
};
const base = { rows: 2, cols: 4, rewards: batch.rewards, mask: batch.mask };

describe('computeAdvantages', () => {
  it('needs a critic only for gae and groups only for the group estimators', () => {
    expect(ADV_ESTIMATORS.filter(needsCritic)).toEqual(['gae']);
    expect(ADV_ESTIMATORS.filter(needsGroups)).toEqual(['grpo', 'gigpo', 'reinforce_plus_plus_baseline', 'rloo']);
  });

  it('dispatches each estimator with the verl defaults', () => {
    const same = (a: { advantages: Float32Array }, b: { advantages: Float32Array }) => expectAllClose(a.advantages, b.advantages, 0);
    same(computeAdvantages(batch, { estimator: 'gae' }), computeGae({ ...base, values: batch.values }));
    same(computeAdvantages(batch, { estimator: 'gae', biLevelGae: true, gamma: 0.9 }), computeBiLevelGae({ ...base, values: batch.values, turnEnds: batch.turnEnds, gamma: 0.9 }));
    same(computeAdvantages(batch, { estimator: 'grpo' }), computeGrpo({ ...base, groupIds: batch.groupIds }));
    same(computeAdvantages(batch, { estimator: 'grpo', normAdvByStd: false }), computeGrpo({ ...base, groupIds: batch.groupIds, normByStd: false }));
    const stateKeys = [['start', 'next'], ['start']];
    const gigpoInput = { ...base, groupIds: batch.groupIds, turnEnds: batch.turnEnds, stateKeys };
    same(computeAdvantages({ ...batch, stateKeys }, { estimator: 'gigpo', gamma: 0.9 }), computeGigpo({ ...gigpoInput, gamma: 0.9 }));
    // gigpo's mode is its own setting: norm_adv_by_std_in_grpo does not reach it.
    same(
      computeAdvantages({ ...batch, stateKeys }, { estimator: 'gigpo', gamma: 0.9, normAdvByStd: true, gigpoNormByStd: false, stepAdvantageWeight: 0.5 }),
      computeGigpo({ ...gigpoInput, gamma: 0.9, normByStd: false, stepWeight: 0.5 }),
    );
    same(computeAdvantages(batch, { estimator: 'rloo' }), computeRloo({ ...base, groupIds: batch.groupIds }));
    same(computeAdvantages(batch, { estimator: 'reinforce_plus_plus', gamma: 0.9 }), computeReinforcePlusPlus({ ...base, gamma: 0.9 }));
    same(computeAdvantages(batch, { estimator: 'reinforce_plus_plus_baseline' }), computeReinforcePlusPlusBaseline({ ...base, groupIds: batch.groupIds }));
  });

  it('does not need values for critic-free estimators', () => {
    expect(() => computeAdvantages({ ...base, groupIds: batch.groupIds }, { estimator: 'grpo' })).not.toThrow();
  });

  it('names what is missing or inconsistent', () => {
    expect(() => computeAdvantages(base, { estimator: 'gae' })).toThrow(/needs critic values/);
    expect(() => computeAdvantages(base, { estimator: 'rloo' })).toThrow(/pass groupIds/);
    expect(() => computeAdvantages({ ...base, values: batch.values }, { estimator: 'gae', biLevelGae: true })).toThrow(/needs turnEnds/);
    expect(() => computeAdvantages(batch, { estimator: 'grpo', biLevelGae: true })).toThrow(/only applies to adv_estimator 'gae'/);
    expect(() => parseAdvEstimator('ppo')).toThrow(/unknown adv_estimator 'ppo'; choose one of gae, grpo/);
  });
});
