import { broadcastOverMask, checkOutcomeInput, groupMembers, mean, sequenceScores, type OutcomeInput } from './outcome';
import type { AdvantageResult } from './types';

/**
 * RLOO: each sequence's score minus the mean of the *other* members of its group, written as
 * n/(n-1) * (R_i - mean_g). A group of one has no others and keeps its raw score (verl).
 */
export function computeRloo(input: OutcomeInput): AdvantageResult {
  checkOutcomeInput(input);
  const { rewards, mask, rows, cols, groupIds } = input;
  const scores = sequenceScores(rewards, rows, cols);
  const out = new Float64Array(rows);
  for (const members of groupMembers(groupIds).values()) {
    const n = members.length;
    const m = mean(members.map((b) => scores[b]));
    for (const b of members) out[b] = n > 1 ? (n / (n - 1)) * (scores[b] - m) : scores[b];
  }
  const advantages = broadcastOverMask(out, mask, rows, cols);
  return { advantages, returns: advantages.slice() };
}
