import { broadcastOverMask, checkOutcomeInput, groupMembers, normaliseWithinGroup, sequenceScores, type OutcomeInput } from './outcome';
import type { AdvantageResult } from './types';

export interface GrpoInput extends OutcomeInput {
  /** Divide by the group's std (GRPO); false keeps only the mean baseline (Dr.GRPO). Default true. */
  normByStd?: boolean;
  /** Added to the std. verl default 1e-6. */
  epsilon?: number;
}

/**
 * GRPO outcome advantage: each sequence's summed reward compared with its group,
 * (R - mean) / (std + eps) with unbiased std. A group of one has no peers, so verl gives it
 * mean 0 and std 1; we keep that so results match verl. Returns equal the advantages.
 */
export function computeGrpo(input: GrpoInput): AdvantageResult {
  checkOutcomeInput(input);
  const { rewards, mask, rows, cols, groupIds, normByStd = true, epsilon = 1e-6 } = input;
  const scores = sequenceScores(rewards, rows, cols);
  const normalised = new Float64Array(rows);
  for (const members of groupMembers(groupIds).values()) {
    normaliseWithinGroup(members.map((b) => scores[b]), normByStd, epsilon).forEach((a, i) => (normalised[members[i]] = a));
  }
  const advantages = broadcastOverMask(normalised, mask, rows, cols);
  return { advantages, returns: advantages.slice() };
}
