import { checkDiscount } from './gae';
import { checkGridSize, checkMask, checkRewardsOnGeneratedTokens } from './grid';
import { broadcastOverMask, checkOutcomeInput, groupMembers, mean, sequenceScores, type OutcomeInput } from './outcome';
import type { AdvantageResult, RewardBatch } from './types';
import { maskedWhiten } from './whiten';
import { returnsToGo } from './returns-to-go';

export interface ReinforcePlusPlusInput extends RewardBatch {
  /** Discount per generated token. Default 1. */
  gamma?: number;
}

/** REINFORCE++: the discounted return to go (returnsToGo), whitened over the batch. */
export function computeReinforcePlusPlus(input: ReinforcePlusPlusInput): AdvantageResult {
  const { mask, gamma = 1 } = input;
  checkGridSize(input);
  checkMask(mask, input);
  checkRewardsOnGeneratedTokens(input.rewards, mask, input);
  checkDiscount('gamma', gamma);
  const returns = returnsToGo(input, gamma);
  return { advantages: maskedWhiten(returns, mask), returns };
}

/**
 * REINFORCE++ with a group baseline: summed reward minus its group's mean (a group of one gets
 * mean 0, as in verl), broadcast over the sequence, then whitened over the whole batch.
 */
export function computeReinforcePlusPlusBaseline(input: OutcomeInput): AdvantageResult {
  checkOutcomeInput(input);
  const { rewards, mask, rows, cols, groupIds } = input;
  const scores = sequenceScores(rewards, rows, cols);
  const centred = new Float64Array(rows);
  for (const members of groupMembers(groupIds).values()) {
    const m = members.length > 1 ? mean(members.map((b) => scores[b])) : 0;
    for (const b of members) centred[b] = scores[b] - m;
  }
  const advantages = maskedWhiten(broadcastOverMask(centred, mask, rows, cols), mask);
  return { advantages, returns: advantages.slice() };
}
