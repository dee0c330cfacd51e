/**
 * How much signal a group-relative estimator (GRPO, RLOO, GiGPO's episode level) gets from a
 * batch: a group whose episodes all scored alike has zero reward variance and so zero advantage
 * (RAGEN-2's reward-variance filter drops exactly these), and a room the policy mostly fails is
 * learnt from only when some episode of its group solves it.
 */
import { normaliseWithinGroup } from '../../trainer-core/algo/outcome';

export interface GroupEpisode {
  iteration: number;
  groupId: number;
  success: boolean;
  reward: number;
  /** Turns the episode played; needed for `advantagePerTurn`. */
  turns?: number;
}

export interface GroupSignal {
  groups: number;
  /** Groups whose episodes' rewards differ by at most 1e-9 (float sums of -0.1 steps differ in the last bits). */
  zeroVariance: number;
  /** Groups whose episodes all succeed / all fail. */
  allSolved: number;
  allFailed: number;
  /** Groups where at most half the episodes succeed but at least one does: failing rooms solved within the group. */
  mostlyFailedSolvedOnce: number;
  /** Groups where at most half succeed (solved or not). */
  mostlyFailed: number;
  /** Count of groups by the number of successful episodes in them. */
  successesPerGroup: Map<number, number>;
  /**
   * GRPO's advantage (group mean and std) averaged over turns, each episode counted once per turn
   * it played, as `loss_agg_mode: token-mean` weighs a one-token reply; over episodes it is 0 by
   * construction. Negative when failures play more turns than successes: the update then pushes
   * the sampled replies down on balance. Null when some episode lacks `turns`.
   */
  advantagePerTurn: number | null;
}

const SAME_REWARD = 1e-9;

/** The signal of all groups of the given episodes (a group is one iteration's group id). */
export function groupSignal(episodes: readonly GroupEpisode[]): GroupSignal {
  const groups = new Map<string, GroupEpisode[]>();
  for (const e of episodes) {
    const key = `${e.iteration}/${e.groupId}`;
    const members = groups.get(key);
    if (members) members.push(e);
    else groups.set(key, [e]);
  }
  const out: GroupSignal = { groups: groups.size, zeroVariance: 0, allSolved: 0, allFailed: 0, mostlyFailedSolvedOnce: 0, mostlyFailed: 0, successesPerGroup: new Map(), advantagePerTurn: null };
  const withTurns = episodes.length > 0 && episodes.every((e) => e.turns !== undefined);
  let advantageTurnSum = 0;
  let turnCount = 0;
  for (const members of groups.values()) {
    const solved = members.filter((e) => e.success).length;
    const rewards = members.map((e) => e.reward);
    if (Math.max(...rewards) - Math.min(...rewards) <= SAME_REWARD) out.zeroVariance++;
    if (solved === members.length) out.allSolved++;
    if (solved === 0) out.allFailed++;
    if (solved * 2 <= members.length) {
      out.mostlyFailed++;
      if (solved > 0) out.mostlyFailedSolvedOnce++;
    }
    out.successesPerGroup.set(solved, (out.successesPerGroup.get(solved) ?? 0) + 1);
    if (withTurns) {
      normaliseWithinGroup(rewards, true, 1e-6).forEach((a, i) => {
        advantageTurnSum += a * members[i].turns!;
        turnCount += members[i].turns!;
      });
    }
  }
  if (withTurns) out.advantagePerTurn = turnCount > 0 ? advantageTurnSum / turnCount : 0;
  return out;
}
