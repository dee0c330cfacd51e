import { describe, expect, it } from 'vitest';
import { benchmarkCalls } from '../../bench/lib/benchmark-names';

const available = new Set(['chart-render', 'envs', 'frozenlake', 'iteration', 'learning', 'llm', 'model']);
const calls = (...words: string[]) => benchmarkCalls(words, available);
const refusal = (...words: string[]) => {
  try {
    calls(...words);
  } catch (error) {
    return (error as Error).message;
  }
  return null;
};

describe('npm run bench -- ...', () => {
  it('runs every named module, each with its own words', () => {
    expect(calls('envs', 'model')).toEqual([{ name: 'envs', args: [] }, { name: 'model', args: [] }]);
    expect(calls()).toEqual([]);
    expect(calls('model', 'wasm', '--small', 'envs', '--seconds', '2')).toEqual([
      { name: 'model', args: ['wasm', '--small'] },
      { name: 'envs', args: ['--seconds', '2'] },
    ]);
  });

  it('leaves the words after learning, iteration or llm to that module, even one that names a module', () => {
    expect(calls('learning', 'frozenlake', '--seeds', '0,1,2')).toEqual([{ name: 'learning', args: ['frozenlake', '--seeds', '0,1,2'] }]);
    expect(calls('model', 'iteration', 'frozenlake-ragen-prompt', 'sokoban')).toEqual([
      { name: 'model', args: [] },
      { name: 'iteration', args: ['frozenlake-ragen-prompt', 'sokoban'] },
    ]);
    expect(calls('frozenlake', 'trainer.total_training_steps=2', '--verbose')).toEqual([{ name: 'frozenlake', args: ['trainer.total_training_steps=2', '--verbose'] }]);
  });

  it('refuses an unknown name with the closest, wherever it stands, and names a tool as one', () => {
    expect(refusal('modle')).toBe("unknown benchmark 'modle'; did you mean model? (npm run bench -- --list lists them)");
    expect(refusal('envs', 'modle')).toBe("unknown benchmark 'modle' (envs takes only --options); did you mean model? (npm run bench -- --list lists them)");
    expect(refusal('chart-render', 'envz')).toMatch(/^unknown benchmark 'envz' \(chart-render takes no arguments\); did you mean envs\?/);
    expect(refusal('big-store')).toBe('big-store is a tool, not a benchmark: npx tsx bench/big-store.ts --help says how to run it');
  });

  it('gives --help to any module, one that takes nothing included', () => {
    expect(calls('chart-render', '--help')).toEqual([{ name: 'chart-render', args: ['--help'] }]);
    expect(calls('envs', '-h')).toEqual([{ name: 'envs', args: ['-h'] }]);
  });
});
