// A database busy past its timeout does not fail a trainer's write (it waits and retries), and
// a run is deleted in short transactions that let other writers in between.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { runCheckpointFolder, deleteRun } from '../../main/services/run-admin';
import { openStore, type Store } from '../../main/store/db';
import { StoreSink } from '../../main/trainer-host/store-sink';
import { makeTempDir, seedStore, type TempDir } from '../helpers/fixtures';

let tmp: TempDir | undefined;
let stores: Array<{ close(): void }> = [];

afterEach(() => {
  for (const s of stores) s.close();
  stores = [];
  tmp?.cleanup();
});

function open(busyTimeoutMs: number): Store {
  const store = openStore(tmp!.dir, { create: true, busyTimeoutMs });
  stores.push(store);
  return store;
}

function otherConnection(store: Store): Database.Database {
  const db = new Database(store.file);
  stores.push(db);
  return db;
}

const EPISODE = {
  iteration: 1,
  split: 'train' as const,
  envTag: 'Bandit',
  groupId: 0,
  envIndex: 0,
  seed: 1,
  totalReward: 1,
  success: true,
  numTurns: 1,
  numActions: 1,
  truncated: false,
  filteredOut: false,
  turns: [
    { turnIndex: 0, observation: 'o', state: { kind: 'text' as const, text: 'o' }, response: 'r', actions: ['a'], numValidActions: 1, reward: 1, done: true, info: {}, numTokens: 3, logprobSum: -1, advantageMean: 0.5 },
  ],
};

describe('a busy database', () => {
  it('makes a trainer write wait past the busy timeout and succeed once the lock is released', async () => {
    tmp = makeTempDir('turnlab-busy-');
    const store = open(50);
    const run = store.runs.create({ name: 'busy', config: {}, seed: 1, envTags: ['Bandit'], algorithm: 'grpo', status: 'running' });
    const logged: string[] = [];
    const sink = new StoreSink(store, run.id, (line) => logged.push(line));

    // Another process (the app deleting a large run) holds the write lock for 8 busy timeouts.
    const other = otherConnection(store);
    other.exec('BEGIN IMMEDIATE');
    other.prepare("UPDATE runs SET notes = 'held' WHERE id = ?").run(run.id);
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec('COMMIT');
        resolve();
      }, 400),
    );

    await sink.iteration(1, { 'train/Bandit/success': 1 }, [EPISODE]);
    await released;
    await sink.runEnded('completed');

    expect(logged.join('\n')).toMatch(/database is busy.*iteration 1/);
    expect(store.metrics.latest(run.id)).toEqual([expect.objectContaining({ name: 'train/Bandit/success', iteration: 1, value: 1 })]);
    expect(store.episodes.iterations(run.id)).toEqual([1]);
    expect(store.runs.get(run.id)).toMatchObject({ status: 'completed', notes: 'held' });
  });

  it('deletes a run in several short transactions, letting other writers in, and removes everything', async () => {
    tmp = makeTempDir('turnlab-chunked-delete-');
    const store = open(5000);
    const seeded = seedStore(store, { iterations: 8, groups: 2, groupSize: 4 });
    const [target, ...others] = seeded;
    const folder = runCheckpointFolder(store, target.run.id);
    mkdirSync(join(folder, 'iter-4'), { recursive: true });
    const count = (db: Database.Database, runId: number) =>
      db
        .prepare(
          `SELECT (SELECT COUNT(*) FROM metrics WHERE run_id = @id) AS metrics,
                  (SELECT COUNT(*) FROM episodes WHERE run_id = @id) AS episodes,
                  (SELECT COUNT(*) FROM turns WHERE episode_id IN (SELECT id FROM episodes WHERE run_id = @id)) AS turns,
                  (SELECT COUNT(*) FROM checkpoints WHERE run_id = @id) AS checkpoints,
                  (SELECT COUNT(*) FROM runs WHERE id = @id) AS runs`,
        )
        .get({ id: runId }) as Record<string, number>;
    const other = otherConnection(store);
    other.pragma('busy_timeout = 0');
    const before = count(other, target.run.id);
    expect(before.episodes).toBeGreaterThan(20);
    const othersBefore = others.map((o) => count(other, o.run.id));

    const deleting = deleteRun(store, target.run.id, new Set(), { chunkEpisodes: 4, pauseMs: 1 });
    // Between two of the delete's transactions another connection writes without waiting at all.
    await new Promise((resolve) => setImmediate(resolve));
    const midway = count(other, target.run.id);
    other.prepare("UPDATE runs SET notes = 'written during the delete' WHERE id = ?").run(others[0].run.id);
    await deleting;

    expect(midway.runs).toBe(1);
    expect(midway.episodes).toBeLessThan(before.episodes);
    expect(count(other, target.run.id)).toEqual({ metrics: 0, episodes: 0, turns: 0, checkpoints: 0, runs: 0 });
    expect(others.map((o) => count(other, o.run.id))).toEqual(othersBefore);
    expect(store.runs.get(others[0].run.id)?.notes).toBe('written during the delete');
    expect(existsSync(folder)).toBe(false);
    expect(store.integrityCheck()).toEqual(['ok']);
  });
});
