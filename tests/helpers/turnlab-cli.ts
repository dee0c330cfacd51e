// The real `turnlab` command in a child process, as a user runs it (for CLI tests).
import { spawn, spawnSync } from 'node:child_process';
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
  const result = spawnSync(process.execPath, cliArgv(args, options.dataDir), {
    cwd: options.cwd ?? tmpdir(),
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** node's arguments for the built CLI, with the data folder first when one is given. */
function cliArgv(args: string[], dataDir?: string): string[] {
  return [join(repoRoot, 'bin/turnlab.js'), ...(dataDir ? ['--data-dir', dataDir] : []), ...args];
}

/** runTurnlab without blocking this process: for a command that waits (a --watch) while the test does other things. */
export function runTurnlabAsync(args: string[], options: { cwd?: string; dataDir?: string } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, cliArgv(args, options.dataDir), { cwd: options.cwd ?? tmpdir(), stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return new Promise((resolveResult, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolveResult({ code, stdout, stderr }));
  });
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

/**
 * `turnlab args...` through the real entry point, main(), in this process, its output captured:
 * the same parsing, checks and messages as the command without the ~0.6 s of CPU a child process
 * spends starting tsx and its modules. For checks of what a command says and stores; what only a
 * real process shows (its exit, its environment, native libraries' output, another user) stays
 * with runTurnlab. `env` sets (or, with undefined, removes) variables for the call's duration.
 * Calls queue, one at a time: each swaps this process's stdout and stderr writers while it runs,
 * so concurrent tests (it.concurrent) calling it wait their turn instead of mixing their output.
 */
export function runTurnlabInProcess(args: string[], options: { dataDir?: string; env?: Record<string, string | undefined> } = {}): Promise<CliResult> {
  const result = inProcessQueue.then(() => runInProcessNow(args, options));
  inProcessQueue = result.catch(() => undefined);
  return result;
}

let inProcessQueue: Promise<unknown> = Promise.resolve();

async function runInProcessNow(args: string[], options: { dataDir?: string; env?: Record<string, string | undefined> }): Promise<CliResult> {
  const { main } = await import('../../main/cli');
  const dataArgs = options.dataDir ? ['--data-dir', options.dataDir] : [];
  let stdout = '';
  let stderr = '';
  const capture = (sink: (text: string) => void) =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      sink(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
      return true;
    }) as typeof process.stdout.write;
  const out = process.stdout.write;
  const err = process.stderr.write;
  // As from a shell: the test runner's IPC channel is not a TurnLab host to report progress to.
  const send = process.send;
  const savedEnv = Object.keys(options.env ?? {}).map((key) => [key, process.env[key]] as const);
  const setEnv = (pairs: ReadonlyArray<readonly [string, string | undefined]>) => {
    for (const [key, value] of pairs) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  setEnv(Object.entries(options.env ?? {}));
  process.send = undefined;
  process.stdout.write = capture((t) => (stdout += t));
  process.stderr.write = capture((t) => (stderr += t));
  try {
    const code = await main([...dataArgs, ...args]);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    process.send = send;
    setEnv(savedEnv);
  }
}
