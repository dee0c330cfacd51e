import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimatorOverrides, parseLearningArgs } from '../../bench/learning';

describe('npm run bench -- learning arguments', () => {
  it('defaults to bandit on seeds 0-4 in bench/results/learning and takes configs, --seeds, --data-dir and --set', () => {
    expect(parseLearningArgs([])).toMatchObject({ configs: ['bandit'], seeds: [0, 1, 2, 3, 4] });
    expect(parseLearningArgs([]).dataDir).toMatch(/bench[/\\]results[/\\]learning$/);
    expect(parseLearningArgs(['sokoban', '--seeds', '0,1,2', '--data-dir', 'here'])).toEqual({
      configs: ['sokoban'],
      seeds: [0, 1, 2],
      estimators: [],
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
});
