import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATED_FILES } from './isolated-files';

const root = join(import.meta.dirname, '../..');
const testFiles = readdirSync(join(root, 'tests'), { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.test.ts'))
  .map((path) => `tests/${path.split('\\').join('/')}`);

describe('test files that run in a process of their own (tests/setup/isolated-files.ts)', () => {
  it('holds every file that mocks a module: in a shared worker the module may be loaded already', () => {
    const mocking = testFiles.filter((file) => /\bvi\.(mock|doMock|unmock)\(/.test(readFileSync(join(root, file), 'utf8')));
    expect(mocking.length).toBeGreaterThan(0);
    for (const file of mocking) expect(ISOLATED_FILES, `${file} mocks a module: add it to tests/setup/isolated-files.ts`).toHaveProperty([file]);
  });

  it('names files that exist', () => {
    for (const file of Object.keys(ISOLATED_FILES)) expect(testFiles, file).toContain(file);
  });
});
