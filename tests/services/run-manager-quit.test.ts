// The app quitting while it trains (main/index.ts, `turnlab serve`): the run manager asks its
// trainers to stop and the store closes at once, before they have ended. A trainer's exit must
// not then read the closed store (it threw, uncaught, in the quitting process), and a seed group's
// queued seeds must not start new trainers after the quit.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { RunManager } from '../../main/trainer-host/run-manager';
import { nodeTrainerLauncher, type TrainerLauncher } from '../../main/trainer-host/trainer-process';
import { makeTempDir } from '../helpers/fixtures';
import { repoRoot, TINY_OVERRIDES } from '../helpers/turnlab-cli';

const tmp = makeTempDir('turnlab-run-manager-quit-');
afterAll(() => tmp.cleanup());

describe('the run manager when the app quits mid-run', () => {
  it('starts no queued seed, and the running trainer ends after the store closed without touching it', async () => {
    const store = openStore(tmp.dir, { create: true });
    const launch = nodeTrainerLauncher({ execPath: process.execPath, binPath: join(repoRoot, 'bin/turnlab.js'), env: process.env });
    const exits: Array<Promise<number | null>> = [];
    const watched: TrainerLauncher = (args) => {
      const child = launch(args);
      exits.push(new Promise((resolve) => child.onExit((code) => resolve(code))));
      return child;
    };
    const manager = new RunManager(store, watched);
    const overrides = [...TINY_OVERRIDES, 'trainer.total_training_steps=500', 'trainer.test_freq=0'];
    const group = manager.startSeedGroup({ configPath: join(repoRoot, 'configs/bandit.yaml'), overrides, name: 'quit', seeds: [1, 2] }, { concurrency: 1 });
    const runId = await group.firstRunId;

    manager.dispose();
    expect(store.seedQueue.waiting()).toEqual([]);
    store.close();
    const outcomes = await group.done;
    // The trainer stopped by itself after its iteration, as asked.
    expect(await exits[0]).toBe(0);
    expect(exits).toHaveLength(1);
    expect(outcomes.map((o) => [o.seed, o.runId, o.status])).toEqual([
      [1, runId, 'unknown (the app quit first)'],
      [2, null, 'not started'],
    ]);

    const reopened = openStore(tmp.dir);
    try {
      expect(reopened.runs.list().map((r) => [r.id, r.status])).toEqual([[runId, 'stopped']]);
    } finally {
      reopened.close();
    }
  }, 60_000);
});
