import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../main/api';
import { openStore, type Store } from '../../main/store/db';
import { RunManager } from '../../main/trainer-host/run-manager';
import { nodeTrainerLauncher } from '../../main/trainer-host/trainer-process';
import { makeTempDir, type TempDir } from '../helpers/fixtures';

const repo = resolve(import.meta.dirname, '../..');
const TINY = [
  'trainer.backend=wasm',
  'model.n_layer=1',
  'model.d_model=32',
  'model.d_ff=64',
  'es_manager.val.env_groups=4',
  'es_manager.val.env_configs.n_groups=[4]',
  'warm_start.steps=3',
  'trainer.test_freq=2',
  'trainer.save_freq=1',
];

let tmp: TempDir;
let store: Store;
let manager: RunManager;
let api: Api;

beforeAll(() => {
  tmp = makeTempDir('turnlab-run-control-');
  store = openStore(tmp.dir, { create: true });
  manager = new RunManager(store, nodeTrainerLauncher({ execPath: process.execPath, binPath: join(repo, 'bin/turnlab.js'), env: process.env }));
  api = createApi(store, { version: 'test', configsDir: join(repo, 'configs'), runManager: manager });
});

afterAll(() => {
  manager?.dispose();
  store?.close();
  tmp?.cleanup();
});

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('run control from the app', () => {
  it('lists the ready configs', async () => {
    const configs = await api.listConfigs();
    expect(configs.map((c) => c.name)).toContain('bandit');
    expect(configs.find((c) => c.name === 'bandit')?.text).toMatch(/env_type|Bandit/);
  });

  it('marks a killed trainer interrupted and resumes it from its last checkpoint', async () => {
    const bandit = join(repo, 'configs/bandit.yaml');
    const { runId } = await api.startRun({ configPath: bandit, overrides: [...TINY, 'trainer.total_training_steps=50'], name: 'killed' });
    expect((await api.activeTrainings()).map((a) => a.runId)).toContain(runId);
    await until('a checkpoint', () => (store.checkpoints.listByRun(runId).length > 0 ? true : undefined));
    const pid = (await api.activeTrainings()).find((a) => a.runId === runId)!.pid;
    process.kill(pid, 'SIGKILL');
    const interrupted = await until('interrupted status', async () => {
      const run = await api.getRun(runId);
      return run.status === 'interrupted' ? run : undefined;
    });
    expect(interrupted.error).toMatch(/SIGKILL/);
    const lastCheckpoint = store.checkpoints.latest(runId)!.iteration;

    const resumed = await api.resumeRun({ runId, overrides: [`trainer.total_training_steps=${lastCheckpoint + 1}`] });
    expect(resumed.runId).toBe(runId);
    const done = await until('completion', async () => {
      const run = await api.getRun(runId);
      return run.status === 'completed' ? run : undefined;
    });
    expect(done.iterations).toBe(lastCheckpoint + 1);
  });

  it('resumes a trainer killed during its warm start from its last warm-start checkpoint', async () => {
    const bandit = join(repo, 'configs/bandit.yaml');
    const warm = ['warm_start.steps=40', 'warm_start.save_freq=4', 'warm_start.batch_size=4', 'trainer.total_training_steps=1'];
    const { runId } = await api.startRun({ configPath: bandit, overrides: [...TINY, ...warm], name: 'killed-warm' });
    await until('a warm-start checkpoint', () => (store.checkpoints.latest(runId)?.warmStartStep ? true : undefined));
    process.kill((await api.activeTrainings()).find((a) => a.runId === runId)!.pid, 'SIGKILL');
    const interrupted = await until('interrupted status', async () => {
      const run = await api.getRun(runId);
      return run.status === 'interrupted' ? run : undefined;
    });
    // Read after the kill: the last save the trainer finished.
    const saved = store.checkpoints.latest(runId)!;
    expect(saved.warmStartStep).toBeGreaterThanOrEqual(4);
    expect(interrupted.error).toMatch(/SIGKILL/);

    await api.resumeRun({ runId });
    const done = await until('completion', async () => {
      const run = await api.getRun(runId);
      return run.status === 'completed' ? run : undefined;
    });
    expect(done.iterations).toBe(1);
    const log = store.logs.list(runId, 0).map((entry) => entry.line);
    expect(log).toContain(`warm start: resuming at step ${saved.warmStartStep}/40`);
    expect(store.checkpoints.listByRun(runId).map((c) => [c.iteration, c.warmStartStep])).toEqual([[1, null]]);
    expect(store.metrics.series(runId, 'warm_start/loss')).toHaveLength(40);
  });

  it('stops a run after its iteration with a checkpoint, and refuses a bad config with the reason', async () => {
    const { runId } = await api.startRun({ configPath: join(repo, 'configs/bandit.yaml'), overrides: [...TINY, 'trainer.total_training_steps=50', 'trainer.save_freq=0'] });
    await until('first iteration', () => (store.metrics.latest(runId).length > 0 ? true : undefined));
    await api.stopRun(runId);
    const stopped = await until('stopped status', async () => {
      const run = await api.getRun(runId);
      return run.status === 'stopped' ? run : undefined;
    });
    expect(store.checkpoints.latest(runId)?.iteration).toBe(stopped.iterations);

    await expect(
      api.startRun({ configPath: join(repo, 'configs/bandit.yaml'), overrides: ['agent_proxy.max_turns=2'] }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS', message: expect.stringMatching(/did you mean .agent_proxy.max_turn./) });
    await expect(api.stopRun(runId)).rejects.toMatchObject({ code: 'REFUSED', message: expect.stringContaining('is not training (it is stopped); nothing to stop') });
  });
});
