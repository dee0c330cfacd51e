import { describe, expect, it } from 'vitest';
import { parseLearningArgs } from '../../bench/learning';

describe('npm run bench -- learning arguments', () => {
  it('defaults to bandit on seeds 0-4 and takes configs and --seeds', () => {
    expect(parseLearningArgs([])).toEqual({ configs: ['bandit'], seeds: [0, 1, 2, 3, 4] });
    expect(parseLearningArgs(['sokoban', '--seeds', '0,1,2'])).toEqual({ configs: ['sokoban'], seeds: [0, 1, 2] });
  });
  it('refuses a bad seed list in one line', () => {
    expect(() => parseLearningArgs(['--seeds', '0,x'])).toThrow(/--seeds wants non-negative integers/);
  });
});
