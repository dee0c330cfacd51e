// A sweep as the Runs view and `turnlab sweeps` describe it: its grid from the plan it stored when
// it started, else read back from its groups' configs (sweeps from before plans were stored).
import { describe, expect, it } from 'vitest';
import { leftOutSettings, sweepAxes, sweepShape, sweepStatus, sweepsOf, type SweepMember } from '../../preload/sweeps';

const run = (id: number, group: string, gamma: number, seed: number): SweepMember =>
  ({ id, name: `${group}-s${seed}`, status: 'completed', seed, tags: [`seeds:${group}`, 'sweep:sw'], bestValSuccess: 0.5, createdAt: 1000 + id, config: { algorithm: { gamma }, trainer: { seed } } }) as SweepMember;

const plan = { name: 'sw', axes: [{ key: 'algorithm.gamma', values: ['0.9', '0.99', '1.0'] }, { key: 'trainer.total_training_steps', values: ['5'] }], seeds: [0, 1] };

describe('sweep listing', () => {
  it('says how many of the planned settings have started, with the keys of the grid from the first group on', () => {
    const [first] = sweepsOf([run(1, 'sw-gamma=0.9', 0.9, 0), run(2, 'sw-gamma=0.9', 0.9, 1)], [plan]);
    expect(sweepShape(first)).toBe('1 of 3 settings started x 2 seeds');
    // A one-value axis sets every run; it is not a key of the grid.
    expect(sweepAxes(first)).toEqual({ axes: [{ key: 'algorithm.gamma', values: ['0.9', '0.99', '1.0'] }], values: [['0.9']] });
    const all = sweepsOf([0.9, 0.99, 1].flatMap((g, i) => [run(10 * i + 1, `sw-gamma=${g}`, g, 0), run(10 * i + 2, `sw-gamma=${g}`, g, 1)]), [plan]);
    expect(sweepShape(all[0])).toBe('3 settings x 2 seeds');
  });

  it('counts the settings it trains, less the combinations no config accepted, and says how many were left out', () => {
    const grid = { name: 'sw', axes: [{ key: 'algorithm.adv_estimator', values: ['gae', 'grpo'] }, { key: 'algorithm.bi_level_gae', values: ['false', 'true'] }], skipped: [['grpo', 'true']], seeds: [0] };
    const [started] = sweepsOf([run(1, 'sw-a', 1, 0)], [grid]);
    expect(sweepShape(started)).toBe('1 of 3 settings started x 1 seed, 1 combination left out');
    const [done] = sweepsOf([run(1, 'sw-a', 1, 0), run(2, 'sw-b', 1, 0), run(3, 'sw-c', 1, 0)], [grid]);
    expect(sweepShape(done)).toBe('3 settings x 1 seed, 1 combination left out');
    expect(leftOutSettings(done)).toEqual(['adv_estimator=grpo bi_level_gae=true']);
    expect(leftOutSettings(sweepsOf([run(1, 'sw-a', 1, 0)], [plan])[0])).toEqual([]);
  });

  it('reads the grid back from the configs where no plan was stored', () => {
    const [old] = sweepsOf([run(1, 'sw-gamma=0.9', 0.9, 0), run(2, 'sw-gamma=1', 1, 0)]);
    expect(sweepShape(old)).toBe('2 settings x 1 seed');
    expect(sweepAxes(old).axes).toEqual([{ key: 'algorithm.gamma', values: ['0.9', '1'] }]);
  });

  it('lists a Slurm sweep from its plan before any task is imported; a local plan without runs is no sweep', () => {
    const sent = { ...plan, name: 'on-slurm', executor: 'slurm' as const, createdAt: 5000 };
    const gone = { ...plan, name: 'deleted', executor: 'local' as const, createdAt: 6000 };
    const sweeps = sweepsOf([run(1, 'sw-gamma=0.9', 0.9, 0)], [plan, sent, gone]);
    expect(sweeps.map((s) => s.name)).toEqual(['on-slurm', 'sw']);
    expect(sweepShape(sweeps[0])).toBe('3 settings x 2 seeds');
    expect(sweepStatus(sweeps[0])).toBe('sent to Slurm, no task imported yet (turnlab jobs polls and imports)');
    expect(sweepStatus(sweeps[0], [{ state: 'failed' }, { state: 'running' }])).toBe('sent to Slurm, no task imported yet (turnlab jobs polls and imports)');
    // Tasks that all ended before any wrote a run will never be imported.
    expect(sweepStatus(sweeps[0], [{ state: 'failed' }, { state: 'cancelled' }, { state: 'failed' }])).toBe('its 3 tasks ended without a run (2 failed, 1 cancelled; turnlab jobs says why)');
    expect(sweepAxes(sweeps[0]).axes.map((a) => a.key)).toEqual(['algorithm.gamma']);
  });
});
