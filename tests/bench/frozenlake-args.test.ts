import { describe, expect, it } from 'vitest';
import { parseFrozenLakeArgs } from '../../bench/frozenlake';

const refusal = (...args: string[]) => {
  try {
    parseFrozenLakeArgs(args);
  } catch (error) {
    return (error as Error).message;
  }
  return null;
};

describe('npm run bench -- frozenlake ...', () => {
  it('reads its options and overrides, so a short run is possible', () => {
    expect(parseFrozenLakeArgs([])).toEqual({ verbose: false, forkIterations: 40, episodes: 512, overrides: [] });
    expect(parseFrozenLakeArgs(['trainer.total_training_steps=2', '--verbose', '--fork-iterations', '0', '--episodes', '16'])).toEqual({
      verbose: true,
      forkIterations: 0,
      episodes: 16,
      overrides: ['trainer.total_training_steps=2'],
    });
  });

  it('refuses what it does not take, with the option meant', () => {
    expect(refusal('--fork', '3')).toBe('unknown option --fork; did you mean --fork-iterations? (options: --verbose, --fork-iterations, --episodes)');
    expect(refusal('--episodes', '0')).toBe("--episodes '0': a whole number of 1 or more (e.g. --episodes 2)");
    expect(refusal('--fork-iterations')).toBe('--fork-iterations wants a value: a whole number of 0 or more (e.g. --fork-iterations 1)');
    expect(refusal('frozen')).toMatch(/^'frozen' is not a key=value override/);
  });
});
