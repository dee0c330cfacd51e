import { checkTurnEnds } from './bi-level-gae';
import { checkDiscount } from './gae';
import { checkRewardsOnGeneratedTokens } from './grid';
import { checkOutcomeInput, groupMembers, normaliseWithinGroup, sequenceScores, type OutcomeInput } from './outcome';
import type { AdvantageResult } from './types';

export interface GigpoInput extends OutcomeInput {
  /** Per sequence, the positions of each turn's last generated token, ascending (from the rollout). */
  turnEnds: ReadonlyArray<ReadonlyArray<number>>;
  /**
   * Per sequence, one key per turn naming the state the turn was played from (the observation
   * shown). Turns of one group with equal keys form a step group.
   */
  stateKeys: ReadonlyArray<ReadonlyArray<string>>;
  /** Discount per turn for the step returns. Default 0.95 (verl-agent). */
  gamma?: number;
  /** Weight of the step advantage added to the episode advantage. Default 1. */
  stepWeight?: number;
  /**
   * Weight of the episode advantage. Default 1 (verl-agent); 0 leaves the step advantage alone, so
   * a turn is judged only against the turns its group played from the same state, and the correct
   * moves of a failed episode are not blamed for its later mistakes.
   */
  episodeWeight?: number;
  /** Divide by the std in both groupings (`mean_std_norm`); false subtracts the mean only (`mean_norm`). */
  normByStd?: boolean;
  epsilon?: number;
}

/**
 * GiGPO (Group-in-Group Policy Optimization, as in verl-agent): the GRPO advantage of the whole
 * episode, plus a step advantage that compares the turns of a group played from the same state.
 * A turn's step return is the discounted sum of the rewards from that turn on; within a step
 * group (same episode group, same state) it is normalised like GRPO. So when two episodes of a
 * group reach the same board and one steps into a hole while the other goes on, that move alone
 * is blamed, where GRPO blames every move of the failed episode alike. A state seen once in its
 * group is a step group of one with nothing to compare against: its step advantage is 0, as in
 * verl-agent (`step_norm_reward` takes its own value as the mean) and the paper (Q - mean Q).
 * Returns equal the advantages (no critic).
 */
export function computeGigpo(input: GigpoInput): AdvantageResult {
  checkOutcomeInput(input);
  checkRewardsOnGeneratedTokens(input.rewards, input.mask, input);
  checkTurnEnds(input);
  const { rewards, mask, rows, cols, groupIds, turnEnds, stateKeys, gamma = 0.95, stepWeight = 1, episodeWeight = 1, normByStd = true, epsilon = 1e-6 } = input;
  checkDiscount('gamma', gamma);
  if (stateKeys.length !== rows) throw new RangeError(`stateKeys has ${stateKeys.length} entries but the batch has ${rows} sequences; give one list per sequence`);
  stateKeys.forEach((keys, b) => {
    if (keys.length !== turnEnds[b].length) {
      throw new RangeError(`stateKeys[${b}] has ${keys.length} keys for ${turnEnds[b].length} turns; give one state key per turn`);
    }
  });
  // Episode groups of one keep mean 0 and std 1, as verl's GRPO (and verl-agent's episode level).
  const normalise = (xs: readonly number[]) => normaliseWithinGroup(xs, normByStd, epsilon);
  // Step groups of one are their own mean: no peer played from that state, so no step signal.
  const normaliseStep = (xs: readonly number[]) => (xs.length === 1 ? [0] : normalise(xs));

  const scores = sequenceScores(rewards, rows, cols);
  const episodeAdvantage = new Float64Array(rows);
  for (const members of groupMembers(groupIds).values()) {
    normalise(members.map((b) => scores[b])).forEach((a, i) => (episodeAdvantage[members[i]] = a));
  }

  // Step returns: rewards summed per turn, then discounted from the last turn back.
  const stepReturns = turnEnds.map((ends, b) => {
    const turnRewards = ends.map((end, i) => {
      let sum = 0;
      for (let t = i === 0 ? 0 : ends[i - 1] + 1; t <= end; t++) sum += rewards[b * cols + t];
      return sum;
    });
    const out = new Array<number>(ends.length);
    let running = 0;
    for (let i = ends.length - 1; i >= 0; i--) out[i] = running = turnRewards[i] + gamma * running;
    return out;
  });
  const stepGroups = new Map<string, Array<[number, number]>>();
  stateKeys.forEach((keys, b) =>
    keys.forEach((key, i) => {
      const id = JSON.stringify([groupIds[b], key]);
      const members = stepGroups.get(id);
      if (members) members.push([b, i]);
      else stepGroups.set(id, [[b, i]]);
    }),
  );
  const stepAdvantage = turnEnds.map((ends) => new Float64Array(ends.length));
  for (const members of stepGroups.values()) {
    normaliseStep(members.map(([b, i]) => stepReturns[b][i])).forEach((a, k) => (stepAdvantage[members[k][0]][members[k][1]] = a));
  }

  const advantages = new Float32Array(rows * cols);
  for (let b = 0; b < rows; b++) {
    let turn = 0;
    for (let t = 0; t < cols; t++) {
      const i = b * cols + t;
      while (turn < turnEnds[b].length - 1 && t > turnEnds[b][turn]) turn++;
      if (mask[i] === 0 || turnEnds[b].length === 0 || t > turnEnds[b][turnEnds[b].length - 1]) continue;
      advantages[i] = episodeWeight * episodeAdvantage[b] + stepWeight * stepAdvantage[b][turn];
    }
  }
  return { advantages, returns: advantages.slice() };
}
