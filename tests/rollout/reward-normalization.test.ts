import { describe, expect, it } from 'vitest';
import { groupingKeys, normalizeScores } from '../../trainer-core/rollout/reward-normalization';
import { filterGroupsByRewardStd, groupScores } from '../../trainer-core/rollout/rollout-filter';
import { computeRolloutMetrics, type EpisodeSummary } from '../../trainer-core/rollout/metrics';

const episodes = [
  { groupId: 0, tag: 'A' },
  { groupId: 0, tag: 'A' },
  { groupId: 1, tag: 'A' },
  { groupId: 1, tag: 'A' },
  { groupId: 2, tag: 'B' },
  { groupId: 2, tag: 'B' },
];
const scores = [1, 3, 0, 0, 2, 6];

describe('normalizeScores', () => {
  it('identity leaves scores alone', () => {
    expect(normalizeScores(scores, groupingKeys(episodes, 'group'), 'identity')).toEqual(scores);
  });

  it('mean centres within each group', () => {
    expect(normalizeScores(scores, groupingKeys(episodes, 'group'), 'mean')).toEqual([-1, 1, 0, 0, -2, 2]);
  });

  it('mean_std divides by the unbiased std and zeroes groups without spread', () => {
    const out = normalizeScores(scores, groupingKeys(episodes, 'group'), 'mean_std');
    const s = Math.SQRT2; // std of [1, 3]
    expect(out[0]).toBeCloseTo(-1 / (s + 1e-6));
    expect(out[1]).toBeCloseTo(1 / (s + 1e-6));
    expect(out.slice(2, 4)).toEqual([0, 0]);
  });

  it('asym_clip clamps the standardised score to [-1, 3]', () => {
    const keys = new Array(16).fill('b');
    const high = normalizeScores([...new Array(15).fill(0), 10], keys, 'asym_clip');
    expect(high[15]).toBe(3);
    expect(high[0]).toBeCloseTo(-0.25);
    const low = normalizeScores([...new Array(15).fill(10), 0], keys, 'asym_clip');
    expect(low[15]).toBe(-1);
  });

  it('groups by tag or batch (and RAGEN names state / inductive)', () => {
    expect(groupingKeys(episodes, 'tag')).toEqual(groupingKeys(episodes, 'inductive'));
    expect(groupingKeys(episodes, 'state')).toEqual(groupingKeys(episodes, 'group'));
    const byTag = normalizeScores(scores, groupingKeys(episodes, 'tag'), 'mean');
    expect(byTag).toEqual([0, 2, -1, -1, -2, 2]);
    const batch = normalizeScores(scores, groupingKeys(episodes, 'batch'), 'mean');
    expect(batch.reduce((a, b) => a + b, 0)).toBeCloseTo(0);
  });
});

describe('filterGroupsByRewardStd', () => {
  const groups = groupScores(episodes.map((e, i) => ({ groupId: e.groupId, score: scores[i] })));

  it('keeps the groups with the highest in-group std', () => {
    const result = filterGroupsByRewardStd(groups, 0.34, 'std');
    expect(result.keptGroupIds).toEqual([2]);
    expect(result.metrics['rollout/chosen_in_group_std']).toBeCloseTo(Math.sqrt(8));
  });

  it('keeps the lowest with std_rev', () => {
    expect(filterGroupsByRewardStd(groups, 0.34, 'std_rev').keptGroupIds).toEqual([1]);
    expect(filterGroupsByRewardStd(groups, 0.67, 'std_rev').keptGroupIds).toEqual([0, 1]);
  });

  it('keeps everything at ratio 1 and at least one group at any ratio', () => {
    expect(filterGroupsByRewardStd(groups, 1, 'std').keptGroupIds).toEqual([0, 1, 2]);
    expect(filterGroupsByRewardStd(groups, 0.01, 'std').keptGroupIds).toHaveLength(1);
    expect(() => filterGroupsByRewardStd(groups, 0, 'std')).toThrow(/rollout_filter_ratio/);
  });

  it('drops the groups whose episodes all scored alike when includeZero is false', () => {
    const result = filterGroupsByRewardStd(groups, 1, 'std', false);
    expect(result.keptGroupIds).toEqual([0, 2]);
    expect(result.metrics['rollout/zero_std_groups']).toBe(1);
    expect(result.metrics['rollout/kept_groups']).toBe(2);
    // std_rev ranks the zero-std group first; dropping it leaves the next one.
    expect(filterGroupsByRewardStd(groups, 0.34, 'std_rev', false).keptGroupIds).toEqual([]);
    expect(filterGroupsByRewardStd(groups, 0.67, 'std_rev', false).keptGroupIds).toEqual([0]);
  });

  it('keeps nothing when every group scored alike and zero-std groups are dropped', () => {
    const alike = groupScores([0, 0, 1, 1].map((score, i) => ({ groupId: i >> 1, score })));
    const result = filterGroupsByRewardStd(alike, 1, 'std', false);
    expect(result.keptGroupIds).toEqual([]);
    expect(result.metrics['rollout/chosen_in_group_std']).toBe(0);
  });
});

describe('computeRolloutMetrics', () => {
  const base: Omit<EpisodeSummary, 'groupId' | 'success' | 'reward'> = {
    tag: 'A', numActions: 2, numTurns: 1, actionsWritten: 2, actionsValid: 1, actionsEffective: 1,
    responseLengths: [10], formatOkTurns: 1, contextFull: false,
  };
  it('reports success, pass@k and in-group reward statistics per tag', () => {
    const metrics = computeRolloutMetrics('train', [
      { ...base, groupId: 0, success: true, reward: 1 },
      { ...base, groupId: 0, success: false, reward: 0 },
      { ...base, groupId: 1, success: false, reward: 0 },
      { ...base, groupId: 1, success: false, reward: 0 },
    ], 2);
    expect(metrics['train/A/success']).toBe(0.25);
    expect(metrics['train/A/pass@2']).toBe(0.5);
    expect(metrics['train/A/action_is_valid']).toBe(0.5);
    expect(metrics['train/A/action_is_effective']).toBe(0.5);
    expect(metrics['train/A/response_length']).toBe(10);
    expect(metrics['train/A/in_group_reward_max']).toBe(0.5);
    expect(metrics['train/A/in_group_reward_std']).toBeCloseTo(Math.SQRT1_2 / 2);
  });
});
