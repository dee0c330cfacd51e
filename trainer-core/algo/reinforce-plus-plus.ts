import { checkDiscount } from './gae';
import { checkGridSize, checkMask, checkRewardsOnGeneratedTokens } from './grid';
import { broadcastOverMask, checkOutcomeInput, groupMembers, mean, sequenceScores, type OutcomeInput } from './outcome';
import type { AdvantageResult, RewardBatch } from './types';
import { maskedWhiten } from './whiten';

export interface ReinforcePlusPlusInput extends RewardBatch {
  /** Discount per generated token. Default 1. */
  gamma?: number;
}

/**
 * REINFORCE++: discounted return-to-go G_t = r_t + gamma * G_next, whitened over the batch.
 * verl zeroes the running return at every mask-0 token, which in a multi-turn sequence would cut
 * each turn off from the rewards of later turns; here the recursion instead jumps over unmasked
 * tokens (like GAE), so only the end of the sequence starts a fresh sum. For a single-turn
 * sequence (generated tokens, then padding) both agree.
 */
export function computeReinforcePlusPlus(input: ReinforcePlusPlusInput): AdvantageResult {
  const { rewards, mask, rows, cols, gamma = 1 } = input;
  checkGridSize(input);
  checkMask(mask, input);
  checkRewardsOnGeneratedTokens(rewards, mask, input);
  checkDiscount('gamma', gamma);
  const returns = new Float32Array(rows * cols);
  for (let b = 0; b < rows; b++) {
    let running = 0;
    for (let t = cols - 1; t >= 0; t--) {
      const i = b * cols + t;
      if (mask[i] === 0) continue;
      running = rewards[i] + gamma * running;
      returns[i] = running;
    }
  }
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
