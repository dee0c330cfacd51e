import { computeBiLevelGae } from './bi-level-gae';
import { computeGae } from './gae';
import { computeGigpo } from './gigpo';
import { computeGrpo } from './grpo';
import { computeReinforcePlusPlus, computeReinforcePlusPlusBaseline } from './reinforce-plus-plus';
import { computeRloo } from './rloo';
import type { AdvantageResult, GroupId, RewardBatch } from './types';

export const ADV_ESTIMATORS = ['gae', 'grpo', 'gigpo', 'reinforce_plus_plus', 'reinforce_plus_plus_baseline', 'rloo'] as const;
export type AdvEstimator = (typeof ADV_ESTIMATORS)[number];

export function isAdvEstimator(name: string): name is AdvEstimator {
  return (ADV_ESTIMATORS as readonly string[]).includes(name);
}

export function parseAdvEstimator(name: string): AdvEstimator {
  if (!isAdvEstimator(name)) {
    throw new RangeError(`unknown adv_estimator '${name}'; choose one of ${ADV_ESTIMATORS.join(', ')}`);
  }
  return name;
}

/** Only GAE (and its bi-level form) reads critic values; the others need no critic at all. */
export function needsCritic(estimator: AdvEstimator): boolean {
  return estimator === 'gae';
}

/** Whether the estimator compares sequences within groups and so needs groupIds. */
export function needsGroups(estimator: AdvEstimator): boolean {
  return estimator === 'grpo' || estimator === 'gigpo' || estimator === 'rloo' || estimator === 'reinforce_plus_plus_baseline';
}

export interface AdvantageBatch extends RewardBatch {
  /** Critic values per token; required by gae. */
  values?: Float32Array;
  /** Per sequence, positions of each turn's last generated token; required by bi-level GAE. */
  turnEnds?: ReadonlyArray<ReadonlyArray<number>>;
  /** Per sequence group key; required by grpo, gigpo, rloo and reinforce_plus_plus_baseline. */
  groupIds?: ReadonlyArray<GroupId>;
  /** Per sequence, the state each turn was played from (its observation); required by gigpo. */
  stateKeys?: ReadonlyArray<ReadonlyArray<string>>;
}

export interface AdvantageConfig {
  estimator: AdvEstimator;
  /** Default 1 (verl). */
  gamma?: number;
  /** Default 1 (verl). */
  lambda?: number;
  /** RAGEN `bi_level_gae`; only meaningful with estimator gae. Default false. */
  biLevelGae?: boolean;
  /** RAGEN `high_level_gamma`. Default 0.95. */
  highLevelGamma?: number;
  /** verl `norm_adv_by_std_in_grpo`. Default true. */
  normAdvByStd?: boolean;
  /** verl-agent `gigpo.mode`: true for mean_std_norm, false for mean_norm. Default true. */
  gigpoNormByStd?: boolean;
  /** verl-agent `gigpo.step_advantage_w`. Default 1. */
  stepAdvantageWeight?: number;
}

/** Computes advantages and returns with the configured estimator (verl `adv_estimator`). */
export function computeAdvantages(batch: AdvantageBatch, config: AdvantageConfig): AdvantageResult {
  const { estimator, gamma = 1, lambda = 1 } = config;
  parseAdvEstimator(estimator);
  if (config.biLevelGae && estimator !== 'gae') {
    throw new RangeError(`bi_level_gae only applies to adv_estimator 'gae', but adv_estimator is '${estimator}'; turn one of them off`);
  }
  const base = { rewards: batch.rewards, mask: batch.mask, rows: batch.rows, cols: batch.cols };
  const groupIds = (): ReadonlyArray<GroupId> => {
    if (!batch.groupIds) throw new RangeError(`adv_estimator '${estimator}' compares sequences within groups; pass groupIds (one per sequence)`);
    return batch.groupIds;
  };
  switch (estimator) {
    case 'gae': {
      if (!batch.values) throw new RangeError("adv_estimator 'gae' needs critic values; pass values, or pick an estimator without a critic (grpo, rloo, reinforce_plus_plus)");
      if (!config.biLevelGae) return computeGae({ ...base, values: batch.values, gamma, lambda });
      if (!batch.turnEnds) throw new RangeError('bi_level_gae needs turnEnds (each turn\'s last generated token per sequence) from the rollout');
      return computeBiLevelGae({ ...base, values: batch.values, turnEnds: batch.turnEnds, gamma, lambda, highLevelGamma: config.highLevelGamma });
    }
    case 'grpo':
      return computeGrpo({ ...base, groupIds: groupIds(), normByStd: config.normAdvByStd ?? true });
    case 'gigpo': {
      if (!batch.turnEnds || !batch.stateKeys) throw new RangeError("adv_estimator 'gigpo' needs turnEnds and stateKeys (each turn's state) from the rollout");
      // verl-agent discounts step returns per turn with algorithm.gamma.
      return computeGigpo({
        ...base,
        groupIds: groupIds(),
        turnEnds: batch.turnEnds,
        stateKeys: batch.stateKeys,
        gamma,
        stepWeight: config.stepAdvantageWeight ?? 1,
        normByStd: config.gigpoNormByStd ?? true,
      });
    }
    case 'rloo':
      return computeRloo({ ...base, groupIds: groupIds() });
    case 'reinforce_plus_plus':
      return computeReinforcePlusPlus({ ...base, gamma });
    case 'reinforce_plus_plus_baseline':
      return computeReinforcePlusPlusBaseline({ ...base, groupIds: groupIds() });
  }
}
