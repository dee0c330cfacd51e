// The table a sweep ends with (main/cli/sweep-summary.ts): each setting's value per axis, read
// back from its overrides, and its seeds' final success as mean ± sample std, best first.
import { describe, expect, it } from 'vitest';
import { axisValues, sweepSummary } from '../../main/cli/sweep-summary';

const axes = [
  { key: 'actor_rollout_ref.actor.optim.lr', values: ['1e-3', '3e-4'] },
  { key: 'algorithm.gamma', values: ['1.0'] },
];

describe('the sweep summary', () => {
  it("reads each axis's value from a setting's overrides, the last one winning, Hydra's + ignored", () => {
    expect(axisValues(axes, ['trainer.seed=1', 'actor_rollout_ref.actor.optim.lr=1e-3', '+algorithm.gamma=0.9', 'algorithm.gamma=1.0'])).toEqual(['1e-3', '1.0']);
    expect(axisValues(axes, ['trainer.seed=1'])).toEqual(['-', '-']);
  });

  it('orders the settings by their mean final success and counts the seeds that validated', () => {
    const { head, rows } = sweepSummary(axes, [
      { group: 'g-lr=1e-3', values: ['1e-3', '1.0'], final: [0.2, 0.4, null], best: [0.5, 0.5, null] },
      { group: 'g-lr=3e-4', values: ['3e-4', '1.0'], final: [0.6, 0.8], best: [0.7, 0.9] },
      { group: 'g-none', values: ['1e-5', '1.0'], final: [null], best: [null] },
    ]);
    expect(head).toEqual(['actor_rollout_ref.actor.optim.lr', 'algorithm.gamma', 'seeds', 'final val success (mean ± std)', 'best val success (mean)', 'seed group']);
    expect(rows).toEqual([
      ['3e-4', '1.0', '2', '0.700 ± 0.141', '0.800', 'g-lr=3e-4'],
      ['1e-3', '1.0', '3', '0.300 ± 0.141 (2 of 3)', '0.500', 'g-lr=1e-3'],
      ['1e-5', '1.0', '1', '-', '-', 'g-none'],
    ]);
  });
});
