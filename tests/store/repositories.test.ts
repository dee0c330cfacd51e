import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../main/store/db';
import { StoreError } from '../../main/store/errors';
import { hashConfig } from '../../main/store/repositories/runs';
import type { NewEpisode } from '../../main/store/types';
import { makeTempDir, seedStore, type SeededRun, type TempDir } from '../helpers/fixtures';

let temp: TempDir;
let store: Store;
let seeded: SeededRun[];

beforeEach(() => {
  temp = makeTempDir();
  store = openStore(temp.dir, { create: true });
  seeded = seedStore(store);
});

afterEach(() => {
  store.close();
  temp.cleanup();
});

function episode(runId: number, iteration: number, envIndex: number): NewEpisode {
  return {
    runId,
    iteration,
    split: 'train',
    envTag: 'frozenlake',
    groupId: 0,
    envIndex,
    seed: 1,
    totalReward: 0,
    success: false,
    numActions: 1,
    truncated: false,
    turns: [
      { observation: 'o', response: 'r', actions: ['Left'], numValidActions: 1, reward: 0, done: true, numTokens: 3 },
    ],
  };
}

describe('runs', () => {
  it('lists runs with their last iteration and best validation success over any tag', () => {
    const runs = store.runs.list();
    expect(runs.map((r) => r.name)).toEqual(['frozenlake-grpo', 'sokoban-ppo', 'frozenlake-grpo-fork']);
    const first = runs[0];
    expect(first.iterations).toBe(8);
    const valSeries = store.metrics.series(first.id, 'val/frozenlake/success').map((p) => p.value as number);
    expect(first.bestValSuccess).toBe(Math.max(...valSeries));

    store.metrics.insert([
      { runId: first.id, name: 'val/sokoban/success', iteration: 2, value: 0.99, wallTime: 1 },
      { runId: first.id, name: 'val/sokoban/success_rate_other', iteration: 2, value: 1, wallTime: 1 },
      { runId: first.id, name: 'train/frozenlake/success', iteration: 9, value: 1, wallTime: 1 },
    ]);
    const updated = store.runs.summary(first.id)!;
    expect(updated.bestValSuccess).toBe(0.99);
    expect(updated.iterations).toBe(9);
  });

  it('reports no iterations and no success for a run without metrics', () => {
    const run = store.runs.create({ name: 'empty', config: {}, seed: 0, envTags: [], algorithm: 'ppo' });
    expect(store.runs.summary(run.id)).toMatchObject({ iterations: null, bestValSuccess: null, status: 'queued' });
  });

  it('stores config, lineage and hashes configs independently of key order', () => {
    const fork = seeded[2].run;
    expect(fork.parentRunId).toBe(seeded[0].run.id);
    expect(fork.parentCheckpointId).toBe(seeded[0].checkpoints[0].id);
    expect(fork.parentIteration).toBe(4);
    expect(hashConfig({ a: 1, b: { c: [1, 2], d: 'x' } })).toBe(hashConfig({ b: { d: 'x', c: [1, 2] }, a: 1 }));
    expect(hashConfig({ a: 1 })).not.toBe(hashConfig({ a: 2 }));
    expect(seeded[0].run.configHash).toBe(hashConfig(seeded[0].run.config));
  });

  it('updates fields and refuses unknown statuses and unknown runs', () => {
    const id = seeded[0].run.id;
    const updated = store.runs.update(id, { status: 'stopping', notes: 'n "1"', tags: ['x', 'y'] });
    expect(updated).toMatchObject({ status: 'stopping', notes: 'n "1"', tags: ['x', 'y'] });
    expect(() => store.runs.update(id, { status: 'bogus' as never })).toThrow(/unknown run status 'bogus'/);
    expect(() => store.runs.update(9999, { notes: 'x' })).toThrow(StoreError);
  });

  it('resolves a run by id or by a unique name', () => {
    const [a, b] = seeded.map((s) => s.run);
    expect(store.runs.resolve(String(a.id)).id).toBe(a.id);
    expect(store.runs.resolve('sokoban-ppo').id).toBe(b.id);
    store.runs.create({ name: 'sokoban-ppo', config: {}, seed: 0, envTags: [], algorithm: 'ppo' });
    expect(() => store.runs.resolve('sokoban-ppo')).toThrow(/matches runs 2, 4; use the run id/);
    expect(() => store.runs.resolve('nope')).toThrow(/unknown run 'nope'/);
  });

  it('deletes a run with everything it recorded', () => {
    const id = seeded[1].run.id;
    expect(store.runs.delete(id)).toBe(true);
    expect(store.runs.get(id)).toBeUndefined();
    expect(store.metrics.names(id)).toEqual([]);
    expect(store.episodes.iterations(id)).toEqual([]);
    expect(store.turns.listByEpisode(seeded[1].episodeIds[0])).toEqual([]);
    expect(store.checkpoints.listByRun(id)).toEqual([]);
  });

  it('truncates a run after iteration k in one go, turns included', () => {
    const { run, episodeIds } = seeded[0];
    const removed = store.runs.truncateAfter(run.id, 4);
    expect(removed.metrics).toBeGreaterThan(0);
    expect(removed.checkpoints).toBe(1);
    expect(store.runs.summary(run.id)!.iterations).toBe(4);
    expect(store.episodes.iterations(run.id)).toEqual([1, 2, 3, 4]);
    expect(store.checkpoints.listByRun(run.id).map((c) => c.iteration)).toEqual([4]);
    expect(store.turns.listByEpisode(episodeIds[episodeIds.length - 1])).toEqual([]);
    // The fork still points at the checkpoint it started from, which survived.
    expect(store.runs.get(seeded[2].run.id)!.parentCheckpointId).toBe(seeded[0].checkpoints[0].id);
  });
});

describe('metrics', () => {
  it('keeps one value per (run, name, iteration): the last write wins', () => {
    const runId = seeded[0].run.id;
    store.metrics.insert([{ runId, name: 'train/kl', iteration: 3, value: 123, wallTime: 5 }]);
    const points = store.metrics.series(runId, 'train/kl').filter((p) => p.iteration === 3);
    expect(points).toEqual([{ iteration: 3, value: 123, wallTime: 5 }]);
  });

  it('stores NaN as null and reads series in iteration order', () => {
    const run = store.runs.create({ name: 'm', config: {}, seed: 0, envTags: [], algorithm: 'ppo' });
    store.metrics.insert([
      { runId: run.id, name: 'loss', iteration: 3, value: NaN, wallTime: 3.5 },
      { runId: run.id, name: 'loss', iteration: 1, value: 0.25, wallTime: 1.5 },
      { runId: run.id, name: 'acc', iteration: 2, value: Infinity, wallTime: 2 },
    ]);
    expect(store.metrics.series(run.id, 'loss')).toEqual([
      { iteration: 1, value: 0.25, wallTime: 1.5 },
      { iteration: 3, value: null, wallTime: 3.5 },
    ]);
    expect(store.metrics.names(run.id)).toEqual(['acc', 'loss']);
    expect(store.metrics.latest(run.id)).toEqual([
      { name: 'acc', iteration: 2, value: Infinity, wallTime: 2 },
      { name: 'loss', iteration: 3, value: null, wallTime: 3.5 },
    ]);
  });

  it('refuses a batch with a bad row as a whole', () => {
    const runId = seeded[0].run.id;
    const before = store.metrics.names(runId).length;
    expect(() =>
      store.metrics.insert([
        { runId, name: 'new/a', iteration: 1, value: 1, wallTime: 1 },
        { runId: 9999, name: 'new/b', iteration: 1, value: 1, wallTime: 1 },
      ]),
    ).toThrow(/FOREIGN KEY/);
    expect(store.metrics.names(runId).length).toBe(before);
    expect(() => store.metrics.insert([{ runId, name: '', iteration: 1, value: 1, wallTime: 1 }])).toThrow(/empty name/);
  });
});

describe('episodes and turns', () => {
  it('filters a run\u2019s episodes at one iteration', () => {
    const runId = seeded[0].run.id;
    const all = store.episodes.listByIteration(runId, 4);
    expect(all.length).toBe(8 + 4);
    expect(store.episodes.listByIteration(runId, 4, { split: 'val' })).toHaveLength(4);
    const group1 = store.episodes.listByIteration(runId, 4, { split: 'train', groupId: 1 });
    expect(group1.map((e) => e.envIndex)).toEqual([4, 5, 6, 7]);
    const successes = store.episodes.listByIteration(runId, 4, { success: true });
    expect(successes.every((e) => e.success)).toBe(true);
    expect(successes.length).toBe(all.filter((e) => e.success).length);
    expect(store.episodes.listByIteration(runId, 4, { envTag: 'sokoban' })).toEqual([]);
    expect(store.episodes.listByIteration(runId, 4, { filteredOut: true }).every((e) => e.groupId % 4 === 3)).toBe(true);
    expect(store.episodes.iterations(runId, 'val')).toEqual([4, 8]);
  });

  it('writes an episode with its turns and reads the turns back in order', () => {
    const runId = seeded[0].run.id;
    const [id] = store.episodes.insert([
      {
        ...episode(runId, 50, 0),
        turns: [
          {
            observation: 'first',
            state: { grid: ['P_', '_G'] },
            response: 'He said "hi",\nthen left. ✓',
            actions: ['Left', 'Up'],
            numValidActions: 2,
            reward: -0.1,
            done: false,
            info: { effective: true },
            numTokens: 12,
            logprobSum: -3.5,
            advantageMean: 0.25,
          },
          { observation: 'second', response: '', actions: [], numValidActions: 0, reward: 1, done: true, numTokens: 1 },
        ],
      },
    ]);
    expect(store.episodes.get(id)).toMatchObject({ numTurns: 2, success: false, truncated: false, filteredOut: false });
    const turns = store.turns.listByEpisode(id);
    expect(turns.map((t) => t.turnIndex)).toEqual([0, 1]);
    expect(turns[0]).toMatchObject({
      state: { grid: ['P_', '_G'] },
      response: 'He said "hi",\nthen left. ✓',
      actions: ['Left', 'Up'],
      done: false,
      info: { effective: true },
      logprobSum: -3.5,
    });
    expect(turns[1]).toMatchObject({ state: null, info: {}, logprobSum: null, advantageMean: null, done: true });
  });

  it('refuses a batch holding a duplicate episode, writing none of it', () => {
    const runId = seeded[0].run.id;
    const before = store.episodes.listByIteration(runId, 60).length;
    expect(() => store.episodes.insert([episode(runId, 60, 0), episode(runId, 60, 1), episode(runId, 60, 1)])).toThrow(
      /UNIQUE/,
    );
    expect(store.episodes.listByIteration(runId, 60).length).toBe(before);
    expect(() => store.episodes.insert([{ ...episode(runId, 61, 0), split: 'test' as never }])).toThrow(/split 'test'/);
  });
});

describe('checkpoints', () => {
  it('lists a run\u2019s checkpoints and finds the latest at or before an iteration', () => {
    const { run, checkpoints } = seeded[0];
    expect(store.checkpoints.listByRun(run.id).map((c) => c.iteration)).toEqual([4, 8]);
    expect(store.checkpoints.latest(run.id)!.iteration).toBe(8);
    expect(store.checkpoints.latest(run.id, 7)!.iteration).toBe(4);
    expect(store.checkpoints.latest(run.id, 3)).toBeUndefined();
    expect(checkpoints[0].metrics['train/reward/mean']).toEqual(expect.any(Number));
    expect(() => store.checkpoints.insert([{ ...checkpoints[0], createdAt: 1 }])).toThrow(/UNIQUE/);
  });
});

describe('connections', () => {
  it('lets another connection read while a writer holds a transaction, seeing only commits', () => {
    const reader = openStore(temp.dir, { busyTimeoutMs: 100 });
    try {
      const runId = seeded[0].run.id;
      const before = reader.metrics.names(runId).length;
      store.transaction(() => {
        store.metrics.insert([{ runId, name: 'wal/after-commit', iteration: 1, value: 1, wallTime: 1 }]);
        expect(reader.metrics.names(runId)).toHaveLength(before);
      });
      expect(reader.metrics.names(runId)).toHaveLength(before + 1);
    } finally {
      reader.close();
    }
  });
});

describe('constraints', () => {
  it('keeps status values to the known set even for SQL written by hand', () => {
    store.close();
    const raw = new Database(store.file);
    expect(() => raw.prepare(`UPDATE runs SET status = 'paused' WHERE id = 1`).run()).toThrow(/CHECK/);
    raw.close();
  });
});
