// A seed group through the run manager, as the workbench and `turnlab train --seeds` start it:
// real trainer processes, never more alive at once than the concurrency asked for.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../main/api';
import { openStore, type Store } from '../../main/store/db';
import { RunManager } from '../../main/trainer-host/run-manager';
import { nodeTrainerLauncher, type TrainerLauncher } from '../../main/trainer-host/trainer-process';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { repoRoot, TINY_OVERRIDES } from '../helpers/turnlab-cli';

const overrides = [...TINY_OVERRIDES, 'trainer.test_freq=1', 'trainer.save_freq=1', 'trainer.total_training_steps=1'];
const bandit = join(repoRoot, 'configs/bandit.yaml');

let tmp: TempDir;
let store: Store;
let manager: RunManager;
let api: Api;
let alive = 0;
let mostAlive = 0;

beforeAll(() => {
  tmp = makeTempDir('turnlab-seed-group-');
  store = openStore(tmp.dir, { create: true });
  const launch = nodeTrainerLauncher({ execPath: process.execPath, binPath: join(repoRoot, 'bin/turnlab.js'), env: process.env });
  // Counts trainer processes from their start to their exit.
  const counting: TrainerLauncher = (args) => {
    const child = launch(args);
    alive += 1;
    mostAlive = Math.max(mostAlive, alive);
    child.onExit(() => (alive -= 1));
    return child;
  };
  manager = new RunManager(store, counting);
  api = createApi(store, { version: 'test', configsDir: join(repoRoot, 'configs'), runManager: manager });
});

afterAll(() => {
  manager?.dispose();
  store?.close();
  tmp?.cleanup();
});

describe('seed groups in the run manager', () => {
  it('trains every seed with at most `concurrency` trainers alive, tagged as one group', async () => {
    const group = manager.startSeedGroup({ configPath: bandit, overrides, name: 'svc', seeds: [3, 4, 5] }, { concurrency: 2 });
    expect(group.group).toBe('svc');
    // Two lanes took seeds 3 and 4 at once; 5 waits for a slot.
    expect(await api.queuedSeedRuns()).toEqual([{ group: 'svc', seed: 5, name: 'svc-s5', cancelled: false }]);
    const outcomes = await group.done;
    expect(await api.queuedSeedRuns()).toEqual([]);
    expect(store.seedQueue.waiting()).toEqual([]);
    expect(mostAlive).toBe(2);
    expect(alive).toBe(0);
    expect(outcomes.map((o) => [o.seed, o.name, o.status])).toEqual([
      [3, 'svc-s3', 'completed'],
      [4, 'svc-s4', 'completed'],
      [5, 'svc-s5', 'completed'],
    ]);
    for (const o of outcomes) {
      const run = store.runs.get(o.runId!)!;
      expect([run.seed, run.tags]).toEqual([o.seed, ['seeds:svc']]);
      expect(o.finalValSuccess).toBeGreaterThanOrEqual(0);
    }
    expect(await group.firstRunId).toBe(outcomes[0].runId);
  }, 240_000);

  it('starts a second group of the same name under a name of its own, through the API', async () => {
    mostAlive = 0;
    const { runId } = await api.startRun({ configPath: bandit, overrides, name: 'svc', seeds: [0], concurrency: 1 });
    expect(store.runs.get(runId)).toMatchObject({ name: 'svc-s0', seed: 0, tags: ['seeds:svc#2'] });
  }, 240_000);

  it('refuses a group whose config has a bad key before starting any trainer', async () => {
    mostAlive = 0;
    await expect(api.startRun({ configPath: bandit, overrides: ['agent_proxy.max_turns=3'], seeds: [0, 1] })).rejects.toThrow(/did you mean.*max_turn/);
    expect(mostAlive).toBe(0);
  });

  it('is stopped through the API while its first trainer is being set up: that run stops once it exists, the queued seed never starts', async () => {
    const long = [...TINY_OVERRIDES, 'trainer.total_training_steps=500', 'trainer.test_freq=0'];
    const group = manager.startSeedGroup({ configPath: bandit, overrides: long, name: 'early', seeds: [0, 1] }, { concurrency: 1 });
    // Seed 0 is taken and its trainer starting; no run row exists yet, so there is no run to stop.
    expect(store.runs.list().some((r) => r.name === 'early-s0')).toBe(false);
    expect(await api.stopSeedGroup('early')).toEqual({ group: 'early', cancelledSeeds: [1], stoppedRuns: [] });
    // The cancelled seed stays listed with its group, not as waiting.
    expect(await api.queuedSeedRuns()).toEqual([{ group: 'early', seed: 1, name: 'early-s1', cancelled: true }]);
    const outcomes = await group.done;
    expect(group.wasStopped()).toBe(true);
    expect(outcomes.map((o) => [o.seed, o.status, o.error])).toEqual([
      [0, 'stopped', null],
      [1, 'not started', 'not started: the group was stopped'],
    ]);
    expect(store.runs.summary(outcomes[0].runId!)!.iterations ?? 0).toBeLessThan(500);
    expect(store.seedQueue.waiting()).toEqual([]);
    expect(store.seedQueue.cancelled().map((r) => [r.group, r.seed])).toEqual([['early', 1]]);
    await expect(api.stopSeedGroup('early')).rejects.toThrow('seed group early has no seed queued and no run training; nothing to stop');
  }, 240_000);
});
