// One owner per run: a run a live process trains cannot be resumed or deleted by another one
// (the refusal names the run, the owner and how to stop it), and a run whose owner died reads
// `interrupted` in `turnlab runs` and `turnlab show`, as in the app.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../main/api';
import { abandonedReason, isHeld, markAbandonedRuns } from '../../main/services/run-owner';
import { openStore, type Store } from '../../main/store/db';
import type { RunProcessInfo } from '../../main/store/repositories/runs';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { until } from '../helpers/until';

const repo = resolve(import.meta.dirname, '../..');
let tmp: TempDir;
let store: Store;
let trainer: ChildProcess | null = null;

beforeAll(() => {
  tmp = makeTempDir('turnlab-owner-');
  store = openStore(tmp.dir, { create: true });
});

afterAll(() => {
  if (trainer && trainer.exitCode === null) trainer.kill('SIGKILL');
  store?.close();
  tmp?.cleanup();
});

function turnlab(...args: string[]) {
  const result = spawnSync(process.execPath, [join(repo, 'bin/turnlab.js'), '--data-dir', tmp.dir, ...args], {
    cwd: tmpdir(),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('run ownership', () => {
  it('refuses to resume or delete a run a live trainer owns, and shows it interrupted once that trainer is killed', async () => {
    const sets = [...TINY_LAKE_OVERRIDES, 'warm_start.steps=5', 'trainer.total_training_steps=500', 'trainer.save_freq=1', 'trainer.test_freq=0'].flatMap((s) => ['--set', s]);
    const child = spawn(
      process.execPath,
      [join(repo, 'bin/turnlab.js'), '--data-dir', tmp.dir, 'train', '--config', join(repo, 'configs/frozenlake-nonslip.yaml'), '--name', 'owned', ...sets],
      { cwd: tmpdir(), stdio: 'ignore' },
    );
    trainer = child;
    const exited = new Promise((r) => child.on('exit', r));
    const checkpoint = await until('a checkpoint', () => store.checkpoints.latest(1));
    const owner = `process ${child.pid} on host ${hostname()}`;

    const resumed = turnlab('resume', 'owned');
    expect(resumed.code).toBe(2);
    expect(resumed.stderr.split('\n').filter((line) => line.startsWith('turnlab:'))).toHaveLength(1);
    expect(resumed.stderr).toContain(`cannot resume run 1 (owned): ${owner} is training it`);
    expect(resumed.stderr).toMatch(/stop it first \(`turnlab stop \d+`, Stop in the app.*Ctrl-C/);
    // Nothing it recorded was deleted, and it trains on.
    expect(store.runs.summary(1)?.iterations).toBeGreaterThanOrEqual(checkpoint.iteration);
    expect(store.runs.get(1)?.status).toBe('running');

    // A refusal says that nothing was deleted, in the CLI as in the workbench.
    expect(turnlab('delete', 'owned', '--yes').stderr).toMatch(new RegExp(`^turnlab: cannot delete run 1 \\(owned\\): ${owner}.*; nothing was deleted\n$`));
    const api = createApi(store, { version: 'test' });
    await expect(api.deleteRun(1)).rejects.toMatchObject({ code: 'REFUSED', message: expect.stringContaining(`cannot delete run 1 (owned): ${owner}`) });
    await expect(api.resumeRun({ runId: 1 })).rejects.toMatchObject({ code: 'REFUSED', message: expect.stringContaining(owner) });
    expect(store.runs.get(1)).toBeDefined();

    child.kill('SIGKILL');
    await exited;
    const runs = JSON.parse(turnlab('runs', '--json').stdout) as Array<{ id: number; status: string; error: string }>;
    expect(runs).toEqual([expect.objectContaining({ id: 1, status: 'interrupted', error: expect.stringContaining(`process ${child.pid} no longer exists; resume it from its last checkpoint`) })]);
    expect(JSON.parse(turnlab('show', '1', '--json').stdout).run.status).toBe('interrupted');
  }, 150_000);

  it('tells a run killed before its first checkpoint to train again, not to resume', () => {
    const run = store.runs.create({ name: 'early', config: {}, seed: 0, envTags: ['Bandit'], algorithm: 'grpo', tags: [] });
    store.runs.update(run.id, { status: 'running' });
    // A pid no process has, on this host, started a minute ago.
    store.runs.setTrainerProcess(run.id, 2 ** 22 + 7, hostname(), Date.now() - 60_000);
    expect(markAbandonedRuns(store)).toContain(run.id);
    expect(store.runs.get(run.id)).toMatchObject({
      status: 'interrupted',
      error: expect.stringMatching(new RegExp(`; it saved no checkpoint to resume from \\(trainer\\.save_freq\\): train it again with New run from this config \\(turnlab train --config run:${run.id}\\)$`)),
    });
  });

  it('tells a run killed in its warm start that its warm start goes on from its checkpoint', () => {
    const run = store.runs.create({ name: 'warming', config: {}, seed: 0, envTags: ['Bandit'], algorithm: 'grpo', tags: [] });
    store.runs.update(run.id, { status: 'running' });
    store.checkpoints.insert([{ runId: run.id, iteration: 0, path: `checkpoints/run-${run.id}/warm-start-8`, sizeBytes: 1, sha256: 'x', warmStartStep: 8 }]);
    store.runs.setTrainerProcess(run.id, 2 ** 22 + 7, hostname(), Date.now() - 60_000);
    expect(markAbandonedRuns(store)).toContain(run.id);
    expect(store.runs.get(run.id)?.error).toMatch(/; resume it: its warm start goes on from its checkpoint at step 8$/);
  });

  it('counts an owner on another host gone once its heartbeat is stale', () => {
    const now = Date.now();
    const run: RunProcessInfo = {
      id: 1,
      name: 'far',
      status: 'running',
      createdAt: now - 3_600_000,
      trainerPid: 4242,
      trainerHost: 'another-host',
      trainerStartedAt: now - 3_600_000,
      heartbeatAt: now - 10_000,
    };
    const options = { host: 'this-host', now, isAlive: () => false };
    expect(isHeld(run, options)).toBe(true);
    expect(abandonedReason(run, options)).toBeNull();
    const stale = { ...run, heartbeatAt: now - 3_600_000 };
    expect(isHeld(stale, options)).toBe(false);
    expect(abandonedReason(stale, options)).toMatch(/4242 on host another-host has not reported for 60 min/);
    // On this host the pid decides, and an owner that started before the machine booted is gone.
    const local = { ...run, trainerHost: 'this-host' };
    expect(isHeld(local, { ...options, isAlive: () => true, bootTime: now - 7_200_000 })).toBe(true);
    expect(isHeld(local, { ...options, isAlive: () => true, bootTime: now - 60_000 })).toBe(false);
    expect(isHeld(local, options)).toBe(false);
  });
});
