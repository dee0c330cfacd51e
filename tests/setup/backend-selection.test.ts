// tfjs prints its "install tfjs-node" banner when a backend is set directly in Node; TurnLab's
// selectBackend turns that banner off first. A test or tool that calls tf.setBackend itself brings
// the banner back into every test log (it did, twice, as new tests were added).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const searched = ['tests', 'bench', 'scripts', 'main', 'trainer-core'];
const owner = 'trainer-core/backend.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'fixtures' ? [] : sources(path);
    return /\.(ts|mts|mjs|js)$/.test(name) ? [path] : [];
  });
}

describe('backend selection', () => {
  it('goes through selectBackend everywhere but its own module', () => {
    const direct = searched
      .flatMap((dir) => sources(join(root, dir)))
      .map((path) => relative(root, path))
      .filter((path) => path !== owner && path !== 'tests/setup/backend-selection.test.ts')
      .filter((path) => /\btf\.setBackend\(/.test(readFileSync(join(root, path), 'utf8')));
    expect(direct, 'call selectBackend from trainer-core/backend.ts instead of tf.setBackend').toEqual([]);
  });
});
