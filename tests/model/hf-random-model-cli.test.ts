// scripts/hf-random-model.ts names its presets as the real models (qwen2.5-0.5b): a folder of that
// name in a researcher's models folder may be a download, which random weights must not replace.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/fixtures';
import { repoRoot } from '../helpers/turnlab-cli';

const temp = makeTempDir('turnlab-random-model-cli-');
afterAll(() => temp.cleanup());

describe('scripts/hf-random-model.ts OUT_DIR PRESET', () => {
  it('refuses to write over a folder that holds files, and says how', () => {
    const folder = join(temp.dir, 'tiny-qwen2');
    mkdirSync(folder);
    writeFileSync(join(folder, 'model.safetensors'), 'a real download');
    let failure: { status: number; stderr: string } | null = null;
    try {
      execFileSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts/hf-random-model.ts'), temp.dir, 'tiny-qwen2'], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      failure = error as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(2);
    expect(failure?.stderr).toBe(`${folder} exists and holds files (a real model of that name?); random weights would replace them: give another OUT_DIR, or --force to write over it\n`);
    expect(readFileSync(join(folder, 'model.safetensors'), 'utf8')).toBe('a real download');
  });
});
