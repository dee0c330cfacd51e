import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimatorOverrides, parseLearningArgs } from '../../bench/learning';
import { checkVariantEnvs, type VariantPlan } from '../../bench/lib/learning-plan';
import { variantOverrides, variantsOf, warmStartDivergence } from '../../bench/lib/learning-variants';

describe('npm run bench -- learning arguments', () => {
  it('defaults to bandit on seeds 0-4 in bench/results/learning and takes configs, --seeds, --data-dir and --set', () => {
    expect(parseLearningArgs([])).toMatchObject({ configs: ['bandit'], seeds: [0, 1, 2, 3, 4] });
    expect(parseLearningArgs([]).dataDir).toMatch(/bench[/\\]results[/\\]learning$/);
    expect(parseLearningArgs(['sokoban', '--seeds', '0,1,2', '--data-dir', 'here'])).toEqual({
      configs: ['sokoban'],
      seeds: [0, 1, 2],
      estimators: [],
      shaping: null,
      episodes: 1024,
      dataDir: resolve('here'),
      overrides: [],
    });
    expect(parseLearningArgs(['sokoban', '--set', 'model.d_ff=512', '--set', 'warm_start.steps=10']).overrides).toEqual(['model.d_ff=512', 'warm_start.steps=10']);
  });
  it('takes --estimators and --episodes', () => {
    const args = parseLearningArgs(['sokoban-hard', '--estimators', 'grpo,gigpo,bi_level_gae', '--episodes', '256', '--seeds', '0']);
    expect(args).toMatchObject({ configs: ['sokoban-hard'], estimators: ['grpo', 'gigpo', 'bi_level_gae'], episodes: 256, seeds: [0] });
    expect(estimatorOverrides('gigpo')).toEqual(['algorithm.adv_estimator=gigpo', 'algorithm.bi_level_gae=false']);
    expect(estimatorOverrides('bi_level_gae')).toEqual(['algorithm.adv_estimator=gae', 'algorithm.bi_level_gae=true']);
  });
  it('refuses bad arguments in one line', () => {
    expect(() => parseLearningArgs(['--seeds', '0,x'])).toThrow(/--seeds wants non-negative integers/);
    expect(() => parseLearningArgs(['--set', 'model.d_ff'])).toThrow(/--set wants key=value/);
    expect(() => parseLearningArgs(['--estimators', 'grpo,ppo'])).toThrow(/--estimators wants names from gae, grpo, gigpo, .*bi_level_gae .*\(got "ppo"\)/);
    expect(() => parseLearningArgs(['--estimators'])).toThrow(/--estimators wants names/);
    expect(() => parseLearningArgs(['--episodes', '1.5'])).toThrow(/--episodes wants a whole number/);
    expect(() => parseLearningArgs(['--episodes', '1'])).toThrow(/--episodes wants a whole number/);
  });
  it('crosses --estimators with --shaping into variants, shaping with the given coefficient and gamma', () => {
    const args = parseLearningArgs(['sokoban-hard', '--estimators', 'grpo,bi_level_gae', '--shaping', 'off,0.1']);
    expect(args.shaping).toEqual([null, 0.1]);
    const variants = variantsOf(args.estimators, args.shaping);
    expect(variants).toEqual([
      { estimator: 'grpo', shaping: null },
      { estimator: 'grpo', shaping: 0.1 },
      { estimator: 'bi_level_gae', shaping: null },
      { estimator: 'bi_level_gae', shaping: 0.1 },
    ]);
    expect(variantOverrides(variants[1], 0.95)).toEqual(['algorithm.adv_estimator=grpo', 'algorithm.bi_level_gae=false', 'algorithm.turn_shaping={coef: 0.1, gamma: 0.95}']);
    expect(variantOverrides(variants[2], 0.95)).toEqual(['algorithm.adv_estimator=gae', 'algorithm.bi_level_gae=true', 'algorithm.turn_shaping=null']);
    // Without the flags: one variant, the config's own estimator and shaping.
    expect(variantsOf([], null)).toEqual([{ estimator: null }]);
    expect(variantOverrides({ estimator: null }, 1)).toEqual([]);
  });
  it('refuses a bad shaping, a misspelt estimator, an unknown option and a --set of what the variants set, in one line', () => {
    expect(() => parseLearningArgs(['--shaping', 'off,-0.1'])).toThrow(/^--shaping wants off or a non-negative coefficient .* \(got "-0.1"\)$/);
    expect(() => parseLearningArgs(['--shaping', 'none'])).toThrow(/--shaping wants off .*e\.g\. --shaping off,0\.1 \(got "none"\)/);
    expect(() => parseLearningArgs(['--shaping'])).toThrow(/--shaping wants off/);
    expect(() => parseLearningArgs(['--estimators', 'grpo,gipgo'])).toThrow(/--estimators wants names from .*\(got "gipgo"\)/);
    expect(() => parseLearningArgs(['--estimator', 'grpo'])).toThrow(/^unknown option --estimator; did you mean --estimators\? \(options: --seeds, --estimators, --shaping/);
    expect(() => parseLearningArgs(['--shaping', 'off,0.1', '--set', 'algorithm.turn_shaping={coef: 0.1, gamma: 0.95}'])).toThrow(
      /^--set algorithm\.turn_shaping=\{coef: 0\.1, gamma: 0\.95\}: --shaping sets `algorithm\.turn_shaping` in each variant/,
    );
    expect(() => parseLearningArgs(['--estimators', 'grpo', '--set', 'algorithm.bi_level_gae=true'])).toThrow(/--estimators sets `algorithm\.bi_level_gae`/);
    expect(() => parseLearningArgs(['--shaping', 'off', '--set', 'algorithm.turn_shaping.coef=1'])).toThrow(/--shaping sets `algorithm\.turn_shaping`/);
    // The same keys without the flag that varies them apply to every run, as before.
    expect(parseLearningArgs(['--set', 'algorithm.turn_shaping={coef: 0.1, gamma: 0.95}']).overrides).toHaveLength(1);
    expect(parseLearningArgs(['--shaping', 'off', '--set', 'algorithm.gamma=0.9']).overrides).toEqual(['algorithm.gamma=0.9']);
  });
  it('finds a difference outside algorithm.* that would stop variants sharing a warm start', () => {
    const a = { algorithm: { adv_estimator: 'grpo' }, warm_start: { lr: 0.002, steps: 10 }, model: { d_ff: 512 } };
    expect(warmStartDivergence(a, { ...a, algorithm: { adv_estimator: 'gae' } })).toBeNull();
    expect(warmStartDivergence(a, { ...a, warm_start: { lr: 0.001, steps: 10 } })).toBe('warm_start.lr: 0.002 -> 0.001');
  });
  it('refuses shaping on an env without a solver before anything trains', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turnlab-bench-plan-'));
    try {
      const path = join(dir, 'coin.yaml');
      writeFileSync(
        path,
        [
          'es_manager:',
          '  train: {env_groups: 1, group_size: 2, env_configs: {tags: [Coin], n_groups: [1]}}',
          '  val: {env_groups: 1, group_size: 1, env_configs: {tags: [Coin], n_groups: [1]}}',
          'custom_envs:',
          `  Coin: {env_type: custom, module: ${resolve(import.meta.dirname, '../envs/fixtures/class-env.ts')}, max_actions_per_traj: 1}`,
          '',
        ].join('\n'),
      );
      const plan = (picked: string[]) => ({ plan: { path }, picked, sets: ['trainer.seed=0'] }) as unknown as VariantPlan;
      await expect(checkVariantEnvs([plan(['algorithm.turn_shaping=null'])])).resolves.toBeUndefined();
      await expect(checkVariantEnvs([plan(['algorithm.turn_shaping=null']), plan(['algorithm.turn_shaping={coef: 0.1, gamma: 1}'])])).rejects.toThrow(
        /`algorithm.turn_shaping` shapes rewards by the solver's distance to the goal, but env `Coin` .* has no solver/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
