// Grouping by one config key (W&B's "Group by"): runs with the same value in one group whatever
// else differs, the keys offered those that differ, seeds left out.
import { describe, expect, it } from 'vitest';
import { groupByKey, groupingKeys, keyGroupLabel } from '../../renderer/src/compare/group-by-key';

const run = (id: number, estimator: string | undefined, lr: number, seed: number) => ({
  id,
  config: { algorithm: estimator === undefined ? { gamma: 1 } : { adv_estimator: estimator, gamma: 1 }, actor: { lr }, trainer: { seed } },
});
const runs = [run(1, 'grpo', 1e-3, 0), run(2, 'gigpo', 1e-3, 0), run(3, 'grpo', 3e-4, 1), run(4, undefined, 1e-3, 2), run(5, 'gigpo', 3e-4, 1)];

describe('group by a config key', () => {
  it('puts runs of one value together, whatever else differs, in the order of their first run', () => {
    expect(groupByKey(runs, 'algorithm.adv_estimator')).toEqual([
      { value: 'grpo', runIds: [1, 3] },
      { value: 'gigpo', runIds: [2, 5] },
      { value: '—', runIds: [4] },
    ]);
    expect(groupByKey(runs, 'actor.lr').map((g) => g.runIds)).toEqual([[1, 2, 4], [3, 5]]);
  });

  it('offers the keys that differ, not the seed, and keeps a chosen key the runs no longer differ by', () => {
    expect(groupingKeys(runs.map((r) => r.config), null)).toEqual(['actor.lr', 'algorithm.adv_estimator']);
    expect(groupingKeys(runs.slice(0, 1).map((r) => r.config), 'actor.lr')).toEqual(['actor.lr']);
  });

  it('names a group by the key, its value and its runs', () => {
    expect(keyGroupLabel('algorithm.adv_estimator', { value: 'grpo', runIds: [1, 3] })).toBe('adv_estimator=grpo: 2 runs (#1, #3)');
    expect(keyGroupLabel('algorithm.adv_estimator', { value: '—', runIds: [4] })).toBe('adv_estimator=— (not set): 1 run (#4)');
  });
});
