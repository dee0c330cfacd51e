// The real `turnlab` command in a child process, as a user runs it (for CLI tests).
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `turnlab [--data-dir dir] args...` from `cwd` (default: the OS temp folder, outside the checkout). */
export function runTurnlab(args: string[], options: { cwd?: string; dataDir?: string; input?: string } = {}): CliResult {
  const dataArgs = options.dataDir ? ['--data-dir', options.dataDir] : [];
  const result = spawnSync(process.execPath, [join(repoRoot, 'bin/turnlab.js'), ...dataArgs, ...args], {
    cwd: options.cwd ?? tmpdir(),
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Overrides that make a run train in seconds on the wasm backend (add total_training_steps). */
export const TINY_OVERRIDES = [
  'trainer.backend=wasm',
  'model.n_layer=1',
  'model.d_model=32',
  'model.d_ff=64',
  'es_manager.val.env_groups=4',
  'es_manager.val.env_configs.n_groups=[4]',
  'warm_start.steps=3',
];

/** TINY_OVERRIDES as `--set` arguments. */
export const TINY_TRAIN = TINY_OVERRIDES.flatMap((o) => ['--set', o]);
