import { describe, expect, it } from 'vitest';
import type { EstimatorSettings } from '../../trainer-core/algo/estimator';
import { computeAdvantages, estimatorNamed, estimatorNames, needsCritic, needsGroups } from '../../trainer-core/algo/estimator-registry';
import { computeBiLevelGae } from '../../trainer-core/algo/bi-level-gae';
import { computeGae } from '../../trainer-core/algo/gae';
import { computeGigpo } from '../../trainer-core/algo/gigpo';
import { computeGrpo } from '../../trainer-core/algo/grpo';
import { computeReinforcePlusPlus, computeReinforcePlusPlusBaseline } from '../../trainer-core/algo/reinforce-plus-plus';
import { computeRloo } from '../../trainer-core/algo/rloo';
import { parseRunConfig } from '../../trainer-core/config';
import { expectAllClose, f32 } from './helpers';

/** The config's `algorithm` section with its documented defaults, plus what a case changes. */
function settings(changes: Partial<EstimatorSettings> & { adv_estimator: string }): EstimatorSettings & { adv_estimator: string } {
  return { ...parseRunConfig({}, 'defaults').algorithm, ...changes };
}

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
    expect(estimatorNames()).toEqual(['gae', 'grpo', 'gigpo', 'reinforce_plus_plus', 'reinforce_plus_plus_baseline', 'rloo']);
    expect(estimatorNames().filter(needsCritic)).toEqual(['gae']);
    expect(estimatorNames().filter(needsGroups)).toEqual(['grpo', 'gigpo', 'reinforce_plus_plus_baseline', 'rloo']);
    expect(estimatorNamed('gigpo').reads).toEqual(['groupIds', 'turnEnds', 'stateKeys']);
  });

  it('dispatches each estimator with the config defaults (verl)', () => {
    const same = (a: { advantages: Float32Array }, b: { advantages: Float32Array }) => expectAllClose(a.advantages, b.advantages, 0);
    same(computeAdvantages(batch, settings({ adv_estimator: 'gae' })), computeGae({ ...base, values: batch.values }));
    same(
      computeAdvantages(batch, settings({ adv_estimator: 'gae', bi_level_gae: true, gamma: 0.9 })),
      computeBiLevelGae({ ...base, values: batch.values, turnEnds: batch.turnEnds, gamma: 0.9 }),
    );
    same(computeAdvantages(batch, settings({ adv_estimator: 'grpo' })), computeGrpo({ ...base, groupIds: batch.groupIds }));
    same(computeAdvantages(batch, settings({ adv_estimator: 'grpo', norm_adv_by_std_in_grpo: false })), computeGrpo({ ...base, groupIds: batch.groupIds, normByStd: false }));
    const stateKeys = [['start', 'next'], ['start']];
    const gigpoInput = { ...base, groupIds: batch.groupIds, turnEnds: batch.turnEnds, stateKeys };
    same(computeAdvantages({ ...batch, stateKeys }, settings({ adv_estimator: 'gigpo', gamma: 0.9 })), computeGigpo({ ...gigpoInput, gamma: 0.9 }));
    // gigpo's mode is its own setting: norm_adv_by_std_in_grpo does not reach it.
    same(
      computeAdvantages(
        { ...batch, stateKeys },
        settings({ adv_estimator: 'gigpo', gamma: 0.9, norm_adv_by_std_in_grpo: true, gigpo: { mode: 'mean_norm', step_advantage_w: 0.5, episode_advantage_w: 0.25 } }),
      ),
      computeGigpo({ ...gigpoInput, gamma: 0.9, normByStd: false, stepWeight: 0.5, episodeWeight: 0.25 }),
    );
    same(computeAdvantages(batch, settings({ adv_estimator: 'rloo' })), computeRloo({ ...base, groupIds: batch.groupIds }));
    same(computeAdvantages(batch, settings({ adv_estimator: 'reinforce_plus_plus', gamma: 0.9 })), computeReinforcePlusPlus({ ...base, gamma: 0.9 }));
    same(computeAdvantages(batch, settings({ adv_estimator: 'reinforce_plus_plus_baseline' })), computeReinforcePlusPlusBaseline({ ...base, groupIds: batch.groupIds }));
  });

  it('computes every critic-free estimator from rewards and groups alone, whatever values say', () => {
    const critics = f32([5, -3, 0, 7, 1, 2, -9, 0]);
    for (const name of estimatorNames().filter((n) => !needsCritic(n))) {
      const inputs = { ...base, groupIds: batch.groupIds, turnEnds: batch.turnEnds, stateKeys: [['start', 'next'], ['start']] };
      const without = computeAdvantages(inputs, settings({ adv_estimator: name }));
      const withValues = computeAdvantages({ ...inputs, values: critics }, settings({ adv_estimator: name }));
      expectAllClose(withValues.advantages, without.advantages, 0);
      expect(without.advantages.some((a) => a !== 0), name).toBe(true);
      // Off the generation mask (position 2 and 7) there is no advantage.
      expect([Math.abs(without.advantages[2]), Math.abs(without.advantages[7])], name).toEqual([0, 0]);
    }
  });

  it('names what is missing or unknown', () => {
    expect(() => computeAdvantages(base, settings({ adv_estimator: 'gae' }))).toThrow(/'gae' needs critic values/);
    expect(() => computeAdvantages(base, settings({ adv_estimator: 'rloo' }))).toThrow(/pass groupIds/);
    expect(() => computeAdvantages({ ...base, values: batch.values }, settings({ adv_estimator: 'gae', bi_level_gae: true }))).toThrow(/needs turnEnds/);
    expect(() => computeAdvantages(batch, settings({ adv_estimator: 'grop' }))).toThrow(/unknown adv_estimator 'grop'; choose one of gae, grpo, .* \(did you mean 'grpo'\?\)/);
  });
});
