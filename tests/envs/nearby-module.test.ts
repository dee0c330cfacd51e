// What "file not found" and "Cannot find package" add for a custom env module: the fix, where
// one is near enough to be the one meant.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingPackageHint, nearbyModuleHint } from '../../trainer-core/envs/nearby-module';

const folder = mkdtempSync(join(tmpdir(), 'turnlab-nearby-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
for (const file of ['maze.mjs', 'maze.ts', 'ladder.ts', 'notes.txt']) writeFileSync(join(folder, file), '');

describe('a module path that does not exist', () => {
  it('names the module it misses by its extension (the .ts first) or by a letter or two, and nothing far off', () => {
    expect(nearbyModuleHint(join(folder, 'maze'))).toBe(`; did you mean ${join(folder, 'maze.ts')}?`);
    expect(nearbyModuleHint(join(folder, 'maez.ts'))).toBe(`; did you mean ${join(folder, 'maze.ts')}?`);
    expect(nearbyModuleHint(join(folder, 'ladders.ts'))).toBe(`; did you mean ${join(folder, 'ladder.ts')}?`);
    expect(nearbyModuleHint(join(folder, 'calculator.ts'))).toBe('');
    expect(nearbyModuleHint(join(folder, 'notes.ts'))).toBe('');
    expect(nearbyModuleHint(join(folder, 'envs', 'maze.ts'))).toBe(` (nor its folder ${join(folder, 'envs')})`);
  });

  it('says where a missing package is installed, and nothing for a missing local file', () => {
    const module = join(folder, 'maze.ts');
    expect(missingPackageHint(`Cannot find package 'left-pad' imported from ${module}`, module)).toBe(
      `; packages resolve from the module's folder and those above it: npm install left-pad in ${folder} (or a folder above)`,
    );
    expect(missingPackageHint(`Cannot find module '${join(folder, 'words')}' imported from ${module}`, module)).toBe('');
  });
});
