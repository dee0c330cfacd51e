import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLearningArgs } from '../../bench/learning';

describe('npm run bench -- learning arguments', () => {
  it('defaults to bandit on seeds 0-4 in bench/results/learning and takes configs, --seeds, --data-dir and --set', () => {
    expect(parseLearningArgs([])).toMatchObject({ configs: ['bandit'], seeds: [0, 1, 2, 3, 4] });
    expect(parseLearningArgs([]).dataDir).toMatch(/bench[/\\]results[/\\]learning$/);
    expect(parseLearningArgs(['sokoban', '--seeds', '0,1,2', '--data-dir', 'here'])).toEqual({ configs: ['sokoban'], seeds: [0, 1, 2], dataDir: resolve('here'), overrides: [] });
    expect(parseLearningArgs(['sokoban', '--set', 'model.d_ff=512', '--set', 'warm_start.steps=10']).overrides).toEqual(['model.d_ff=512', 'warm_start.steps=10']);
  });
  it('refuses a bad seed list in one line', () => {
    expect(() => parseLearningArgs(['--seeds', '0,x'])).toThrow(/--seeds wants non-negative integers/);
    expect(() => parseLearningArgs(['--set', 'model.d_ff'])).toThrow(/--set wants key=value/);
  });
});
