// A run that cannot start leaves no run behind (issue 16 item 4); one that cannot write its
// checkpoint ends `failed` with a line naming the folder, and no `.partial` folder (item 5).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/fixtures';
import { runTurnlabInProcess } from '../helpers/turnlab-cli';

const repo = resolve(import.meta.dirname, '../..');
const tmp = makeTempDir('turnlab-cli-failures-');
afterAll(() => tmp.cleanup());

function turnlab(dataDir: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [join(repo, 'bin/turnlab.js'), '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What is stored afterwards, read through the `turnlab` entry point in this process. */
const listed = async (dataDir: string, ...args: string[]) => JSON.parse((await runTurnlabInProcess(args, { dataDir })).stdout) as unknown;

const trainTiny = (dataDir: string, ...sets: string[]) =>
  turnlab(
    dataDir,
    'train',
    '--config',
    join(repo, 'configs/bandit.yaml'),
    ...['trainer.backend=wasm', 'model.n_layer=1', 'model.d_model=32', 'model.d_ff=64', 'warm_start.steps=2', 'trainer.total_training_steps=1', 'trainer.test_freq=0', ...sets].flatMap((s) => ['--set', s]),
  );

/** Every path under `dir`, for spotting leftovers. */
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => [join(dir, e.name), ...(e.isDirectory() ? walk(join(dir, e.name)) : [])]);
}

describe('runs that cannot start or cannot save', () => {
  it('creates no run when an env module is missing or broken, or the backend is not installed', async () => {
    const dataDir = join(tmp.dir, 'ghosts');
    const cases: Array<[string, RegExp]> = [
      [`custom_envs.Bandit.module=${join(tmp.dir, 'no-such-env.ts')}`, /custom environment .*no-such-env\.ts: file not found/],
      [`custom_envs.Bandit.module=${join(repo, 'tests/envs/fixtures/broken-reset.ts')}`, /broken-reset\.ts/],
      ['trainer.backend=tensorflow', /Backend "tensorflow" cannot start: .*tfjs-node not installed/],
    ];
    for (const [set, message] of cases) {
      const failed = trainTiny(dataDir, set);
      expect(failed.code, failed.stderr).toBe(2);
      expect(failed.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^turnlab: .*${message.source}`))]);
    }
    expect(await listed(dataDir, 'runs', '--json')).toEqual([]);
  });

  it('fails the run with the folder and the reason when its checkpoint folder cannot be written', async () => {
    const dataDir = join(tmp.dir, 'unwritable');
    // Tests run as root, which chmod cannot stop: a file where the run's folder goes can.
    mkdirSync(join(dataDir, 'checkpoints'), { recursive: true });
    writeFileSync(join(dataDir, 'checkpoints/run-1'), 'not a folder');
    const failed = trainTiny(dataDir);
    const line = `cannot write checkpoint to ${join(dataDir, 'checkpoints/run-1/iter-1')}: ${join(dataDir, 'checkpoints/run-1')} is a file, not a folder (ENOTDIR)`;
    expect(failed.code, failed.stderr).toBe(2);
    expect(failed.stderr).toContain(`turnlab: ${line}\n`);
    const [run] = (await listed(dataDir, 'runs', '--json')) as Array<{ id: number; status: string }>;
    expect(run).toMatchObject({ id: 1, status: 'failed' });
    const shown = (await listed(dataDir, 'show', '1', '--json')) as { run: { error: string } };
    expect(shown.run.error).toBe(line);
    expect(walk(dataDir).filter((p) => p.includes('.partial'))).toEqual([]);
  });
});
