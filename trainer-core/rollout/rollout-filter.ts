import { groupIndices, mean, std } from './stats';

/**
 * StarPO-S uncertainty filtering: keep the groups whose episodes disagree most (highest in-group
 * reward std, `std`) or least (`std_rev`). A ratio of 1 keeps everything.
 */

export type RolloutFilterType = 'std' | 'std_rev';

export interface GroupScores {
  groupId: number;
  scores: number[];
}

export interface RolloutFilterResult {
  /** Kept group ids, in ascending order. */
  keptGroupIds: number[];
  metrics: Record<string, number>;
}

export function filterGroupsByRewardStd(groups: readonly GroupScores[], ratio: number, type: RolloutFilterType): RolloutFilterResult {
  if (!(ratio > 0 && ratio <= 1)) throw new RangeError(`rollout_filter_ratio must be in (0, 1], got ${ratio}`);
  const stats = groups.map((g) => ({ groupId: g.groupId, std: std(g.scores), mean: mean(g.scores), max: Math.max(...g.scores) }));
  // RAGEN keeps int(ratio * groups); at least one group is kept so an update always has data.
  const keep = ratio >= 1 ? groups.length : Math.max(1, Math.floor(ratio * groups.length + 1e-9));
  const order = stats
    .map((s, index) => ({ ...s, index }))
    .sort((a, b) => (type === 'std' ? b.std - a.std : a.std - b.std) || a.index - b.index);
  const kept = order.slice(0, keep);
  const metrics: Record<string, number> = {
    'rollout/in_group_std': mean(stats.map((s) => s.std)),
    'rollout/in_group_max': mean(stats.map((s) => s.max)),
    'rollout/in_group_mean': mean(stats.map((s) => s.mean)),
    'rollout/chosen_in_group_std': mean(kept.map((s) => s.std)),
    'rollout/chosen_in_group_max': mean(kept.map((s) => s.max)),
    'rollout/chosen_in_group_mean': mean(kept.map((s) => s.mean)),
    'rollout/kept_groups': kept.length,
  };
  return { keptGroupIds: kept.map((s) => s.groupId).sort((a, b) => a - b), metrics };
}

/** Groups episodes' scores by group id, for `filterGroupsByRewardStd`. */
export function groupScores(episodes: ReadonlyArray<{ groupId: number; score: number }>): GroupScores[] {
  return [...groupIndices(episodes.map((e) => e.groupId)).entries()].map(([groupId, indices]) => ({
    groupId,
    scores: indices.map((i) => episodes[i].score),
  }));
}
