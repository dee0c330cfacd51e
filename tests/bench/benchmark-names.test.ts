import { describe, expect, it } from 'vitest';
import { benchmarksNamed } from '../../bench/lib/benchmark-names';

const available = new Set(['envs', 'frozenlake', 'iteration', 'learning', 'model']);

describe('npm run bench -- ...', () => {
  it('runs every named module', () => {
    expect(benchmarksNamed(['envs', 'model'], available)).toEqual(['envs', 'model']);
    expect(benchmarksNamed([], available)).toEqual([]);
  });

  it('leaves the words after learning or iteration to that module, even one that names a module', () => {
    expect(benchmarksNamed(['learning', 'frozenlake', '--seeds', '0,1,2'], available)).toEqual(['learning']);
    expect(benchmarksNamed(['model', 'iteration', 'frozenlake-ragen-prompt', 'sokoban'], available)).toEqual(['model', 'iteration']);
  });

  it('reports an unknown first name rather than running everything', () => {
    expect(benchmarksNamed(['nope'], available)).toEqual(['nope']);
  });
});
