// Each built-in environment is a folder of its own (RAGEN's layout, the recipe in
// docs/architecture.md): its env, options schema and renderer side by side, its registry entry
// in its index. The top of envs/ holds only what every environment shares.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listEnvSpecs } from '../../trainer-core/envs';
import { banditSpec } from '../../trainer-core/envs/bandit';
import { countdownSpec } from '../../trainer-core/envs/countdown';
import { frozenLakeSpec } from '../../trainer-core/envs/frozen-lake';
import { mathqaSpec } from '../../trainer-core/envs/mathqa';
import { sokobanSpec } from '../../trainer-core/envs/sokoban';

const ENVS = resolve(import.meta.dirname, '../../trainer-core/envs');
const folders = readdirSync(ENVS).filter((name) => statSync(join(ENVS, name)).isDirectory());

describe('the built-in environments', () => {
  it('each have a folder with env.ts, options.ts, render.ts and index.ts', () => {
    expect(folders.sort()).toEqual(['bandit', 'countdown', 'frozen-lake', 'mathqa', 'sokoban']);
    const missing = folders.flatMap((folder) =>
      ['env.ts', 'options.ts', 'render.ts', 'index.ts'].filter((file) => !existsSync(join(ENVS, folder, file))).map((file) => `${folder}/${file}`),
    );
    expect(missing).toEqual([]);
  });

  it('are registered from their folders, one spec each (the bandit two)', () => {
    const fromFolders = [frozenLakeSpec, sokobanSpec, countdownSpec, banditSpec, mathqaSpec];
    for (const spec of fromFolders) expect(listEnvSpecs()).toContain(spec);
    expect(listEnvSpecs().map((s) => s.type).sort()).toEqual(['bandit', 'bandit_rev', 'countdown', 'frozen_lake', 'metamathqa', 'sokoban']);
  });

  it('leave no file named after an environment at the top of envs/', () => {
    const top = readdirSync(ENVS).filter((name) => name.endsWith('.ts'));
    expect(top.filter((name) => folders.some((folder) => name.startsWith(folder)))).toEqual([]);
  });
});
