import { describe, expect, it } from 'vitest';
import { ABSENT, configTable, flattenConfig } from '../../renderer/src/compare/config-diff';
import { aggregateBand, groupBySeed, seedFreeSignature } from '../../renderer/src/compare/seed-groups';

const base = {
  trainer: { seed: 0, experiment_name: 'bandit', total_training_steps: 30 },
  model: { n_layer: 2, d_model: 64 },
  es_manager: { train: { start_seed: 0, env_configs: { tags: ['Bandit'], n_groups: [4] } }, val: { start_seed: 123 } },
};
function withSeed(seed: number, patch: (c: typeof base) => void = () => {}): typeof base {
  const c = structuredClone(base);
  c.trainer.seed = seed;
  c.es_manager.train.start_seed = seed;
  patch(c);
  return c;
}

describe('flattenConfig and configTable', () => {
  it('flattens nested objects to dotted keys and keeps arrays as leaves', () => {
    const flat = flattenConfig(base);
    expect(flat['trainer.seed']).toBe(0);
    expect(flat['es_manager.train.env_configs.tags']).toEqual(['Bandit']);
    expect(Object.keys(flat)).not.toContain('trainer');
  });

  it('shows only differing keys when asked, with absent keys marked', () => {
    const a = withSeed(1);
    const b = withSeed(2, (c) => (c.model.d_model = 128));
    const extra = { ...withSeed(1), notes: 'x' };
    const all = configTable([a, b, extra], false);
    const diff = configTable([a, b, extra], true);
    expect(all.length).toBeGreaterThan(diff.length);
    expect(diff.map((r) => r.key)).toEqual(['es_manager.train.start_seed', 'model.d_model', 'notes', 'trainer.seed']);
    expect(diff.find((r) => r.key === 'notes')!.values).toEqual([ABSENT, ABSENT, 'x']);
    expect(diff.find((r) => r.key === 'model.d_model')!.values).toEqual(['64', '128', '64']);
    expect(all.find((r) => r.key === 'es_manager.train.env_configs.tags')!.values[0]).toBe('["Bandit"]');
  });
});

describe('seed groups', () => {
  it('puts runs that differ only by trainer.seed (and seeds that follow it) in one group', () => {
    const runs = [
      { id: 1, config: withSeed(1) },
      { id: 2, config: withSeed(2, (c) => (c.model.d_model = 128)) },
      { id: 3, config: withSeed(3) },
      { id: 4, config: withSeed(4, (c) => (c.model.d_model = 128)) },
    ];
    expect(groupBySeed(runs).map((g) => g.runIds)).toEqual([
      [1, 3],
      [2, 4],
    ]);
  });

  it('keeps apart runs whose derived seed was set on its own', () => {
    const own = withSeed(2, (c) => (c.es_manager.train.start_seed = 99));
    expect(seedFreeSignature(own)).not.toBe(seedFreeSignature(withSeed(1)));
    expect(groupBySeed([{ id: 1, config: withSeed(1) }, { id: 2, config: own }])).toHaveLength(2);
  });

  it('aligns members on the iteration and reports mean ± sample std with the member count', () => {
    const p = (iteration: number, value: number | null) => ({ iteration, value, wallTime: iteration * 1000 });
    const band = aggregateBand(
      [
        [p(1, 1), p(2, 2), p(3, 10)],
        [p(1, 3), p(2, null)],
      ],
      (point) => point.iteration,
      'std',
    );
    expect(band.map((b) => b.iteration)).toEqual([1, 2, 3]);
    expect(band[0]).toMatchObject({ mean: 2, n: 2 });
    expect(band[0].upper! - band[0].mean!).toBeCloseTo(Math.SQRT2, 12);
    expect(band[1]).toMatchObject({ mean: 2, lower: 2, upper: 2, n: 1 });
    expect(band[2]).toMatchObject({ mean: 10, n: 1 });
    const minmax = aggregateBand([[p(1, 1)], [p(1, 5)], [p(1, 3)]], (q) => q.iteration, 'minmax');
    expect(minmax[0]).toMatchObject({ mean: 3, lower: 1, upper: 5, n: 3 });
  });
});
