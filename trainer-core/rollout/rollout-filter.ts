import { groupIndices, mean, std } from './stats';

/**
 * StarPO-S uncertainty filtering: keep the groups whose episodes disagree most (highest in-group
 * reward std, `std`) or least (`std_rev`). A ratio of 1 keeps everything.
 */

export type RolloutFilterType = 'std' | 'std_rev';

// Scores are sums of a few rewards; float noise below this is no disagreement.
const ZERO_STD = 1e-9;

export interface GroupScores {
  groupId: number;
  scores: number[];
}

export interface RolloutFilterResult {
  /** Kept group ids, in ascending order. */
  keptGroupIds: number[];
  metrics: Record<string, number>;
}

/** Groups the filter keeps of `groups` at `ratio`: RAGEN keeps int(ratio * groups), and at least one so an update always has data. */
export function keptGroupCount(groups: number, ratio: number): number {
  return ratio >= 1 ? groups : Math.max(1, Math.floor(ratio * groups + 1e-9));
}

/**
 * `includeZero: false` then also drops the groups whose episodes all scored the same (DAPO's
 * dynamic-sampling filter): their group-relative advantages are zero, so they only dilute a
 * token-mean loss and cost update time. Every group may be dropped; the update is then skipped.
 */
export function filterGroupsByRewardStd(
  groups: readonly GroupScores[],
  ratio: number,
  type: RolloutFilterType,
  includeZero = true,
): RolloutFilterResult {
  if (!(ratio > 0 && ratio <= 1)) throw new RangeError(`rollout_filter_ratio must be in (0, 1], got ${ratio}`);
  const stats = groups.map((g) => ({ groupId: g.groupId, std: std(g.scores), mean: mean(g.scores), max: Math.max(...g.scores) }));
  const keep = keptGroupCount(groups.length, ratio);
  const order = stats
    .map((s, index) => ({ ...s, index }))
    .sort((a, b) => (type === 'std' ? b.std - a.std : a.std - b.std) || a.index - b.index);
  const kept = order.slice(0, keep).filter((s) => includeZero || s.std > ZERO_STD);
  const metrics: Record<string, number> = {
    'rollout/in_group_std': mean(stats.map((s) => s.std)),
    'rollout/in_group_max': mean(stats.map((s) => s.max)),
    'rollout/in_group_mean': mean(stats.map((s) => s.mean)),
    'rollout/chosen_in_group_std': kept.length > 0 ? mean(kept.map((s) => s.std)) : 0,
    'rollout/chosen_in_group_max': kept.length > 0 ? mean(kept.map((s) => s.max)) : 0,
    'rollout/chosen_in_group_mean': kept.length > 0 ? mean(kept.map((s) => s.mean)) : 0,
    'rollout/zero_std_groups': stats.filter((s) => s.std <= ZERO_STD).length,
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
