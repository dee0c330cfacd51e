// The seed-group queue of migration 0010 (main/store/repositories/seed-queue.ts) and what the
// services read from it (main/services/seed-groups.ts): a seed starts only while its row can be
// taken, a stopped group's seeds never can, and the rows of a process that died are dropped
// rather than shown as waiting forever.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queuedSeeds, stopSeedGroup } from '../../main/services/seed-groups';
import { processStartedAt } from '../../main/services/stop-run';
import { openStore, type Store } from '../../main/store/db';
import { planSeedGroup, thisProcessOwner } from '../../main/trainer-host/seed-group';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { repoRoot } from '../helpers/turnlab-cli';

let tmp: TempDir;
let store: Store;

beforeEach(() => {
  tmp = makeTempDir('turnlab-seed-queue-');
  store = openStore(tmp.dir, { create: true });
});

afterEach(() => {
  store.close();
  tmp.cleanup();
});

const seeds = (group: string, ...list: number[]) => list.map((seed) => ({ seed, runName: `${group}-s${seed}` }));

describe('the seed-group queue', () => {
  it('starts a seed once, and none after the group is stopped', () => {
    const owner = thisProcessOwner();
    store.seedQueue.enqueue('g', seeds('g', 0, 1, 2), owner);
    expect(store.seedQueue.take('g', 0)).toBe(true);
    expect(store.seedQueue.take('g', 0)).toBe(false);
    expect(store.seedQueue.waiting().map((r) => r.seed)).toEqual([1, 2]);
    expect(store.seedQueue.isStopped('g')).toBe(false);
    expect(store.seedQueue.stop('g')).toEqual([1, 2]);
    expect(store.seedQueue.isStopped('g')).toBe(true);
    expect(store.seedQueue.take('g', 1)).toBe(false);
    expect(store.seedQueue.waiting()).toEqual([]);
    store.seedQueue.release(owner, 'g');
    // The seeds the stop cancelled outlive their owner, so the group still lists every seed asked for.
    expect(store.seedQueue.cancelled().map((r) => r.seed)).toEqual([1, 2]);
    expect(store.seedQueue.owners()).toEqual([]);
  });

  it('names a group after one that has only queued seeds, so the two queues stay apart', () => {
    store.seedQueue.enqueue('svc', seeds('svc', 0, 1), thisProcessOwner());
    expect(planSeedGroup(store, { configPath: join(repoRoot, 'configs/bandit.yaml'), name: 'svc', seeds: [0] }).group).toBe('svc#2');
  });

  it("shows a live process's seeds and drops those of a process that is gone or whose pid was reused", () => {
    const me = thisProcessOwner();
    // This process's recorded start agrees with /proc's, within the slack the check allows.
    const fromProc = processStartedAt(process.pid);
    if (fromProc !== null) expect(Math.abs(fromProc - me.startedAt)).toBeLessThan(2_000);
    store.seedQueue.enqueue('mine', seeds('mine', 4), me);
    store.seedQueue.enqueue('dead', seeds('dead', 0), { pid: 2 ** 22 + 3, host: hostname(), startedAt: me.startedAt });
    store.seedQueue.enqueue('reused', seeds('reused', 0), { ...me, startedAt: me.startedAt - 3_600_000 });
    store.seedQueue.enqueue('remote', seeds('remote', 7), { pid: 2 ** 22 + 3, host: 'another-host', startedAt: me.startedAt });
    expect(queuedSeeds(store)).toEqual([
      { group: 'mine', seed: 4, name: 'mine-s4', cancelled: false },
      { group: 'remote', seed: 7, name: 'remote-s7', cancelled: false },
    ]);
    expect(store.seedQueue.has('dead')).toBe(false);
    expect(store.seedQueue.has('reused')).toBe(false);
  });

  it('stops a group whose runs train in other processes through their pids, and refuses an unknown group', () => {
    store.seedQueue.enqueue('grp', seeds('grp', 1), thisProcessOwner());
    const run = store.runs.create({ name: 'grp-s0', config: {}, seed: 0, envTags: ['Bandit'], algorithm: 'grpo', tags: ['seeds:grp'] });
    // A pid alive here (this test's parent), as a trainer's would be.
    const alive = process.ppid;
    store.runs.setTrainerProcess(run.id, alive, 'this-host', Date.now() - 60_000);
    store.runs.update(run.id, { status: 'running' });
    const signals: Array<[number, string]> = [];
    const result = stopSeedGroup(store, 'grp', () => false, { host: 'this-host', kill: (pid, signal) => void signals.push([pid, signal]), startedAt: () => Date.now() - 120_000 });
    expect(result).toEqual({ group: 'grp', cancelledSeeds: [1], stoppedRuns: [{ runId: run.id, name: 'grp-s0', pid: alive, alreadyStopping: false }] });
    expect(signals).toEqual([[alive, 'SIGTERM']]);
    expect(store.runs.get(run.id)!.status).toBe('stopping');
    expect(() => stopSeedGroup(store, 'nope')).toThrow(/^no seed group named "nope": /);
  });
});
