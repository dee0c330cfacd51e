// Migration 0007 (the Runs table's columns, kept by triggers) applied to a store written by the
// schema before it, and the Runs table's server-side page: filters, sort, paging.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../main/store/db';
import { parseRunConditions } from '../../preload/run-conditions';
import type { MetricPoint, NewRun } from '../../main/store/types';
import type { TempDir } from '../helpers/fixtures';
import { migrationsSandbox } from './migrations-sandbox';

let temp: TempDir;
let dataDir: string;
let migrationsDir: string;
beforeEach(() => ({ temp, dataDir, migrationsDir } = migrationsSandbox()));
afterEach(() => temp.cleanup());

function newRun(name: string, extra: Partial<NewRun> = {}): NewRun {
  return { name, config: { trainer: { total_training_steps: 10 }, warm_start: { mode: 'none' } }, seed: 0, envTags: ['Bandit'], algorithm: 'grpo', status: 'completed', ...extra };
}

function points(runId: number, upTo: number, success: (it: number) => number): MetricPoint[] {
  return Array.from({ length: upTo }, (_, k) => [
    { runId, name: 'actor/entropy', iteration: k + 1, value: 1 / (k + 1), wallTime: k },
    { runId, name: 'val/Bandit/success', iteration: k + 1, value: success(k + 1), wallTime: k },
  ]).flat();
}

function counts(store: Store): number[] {
  const db = store.connection;
  return ['runs', 'metrics', 'episodes', 'turns'].map((t) => (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n);
}

describe('migration 0007 on a store of the schema before it', () => {
  it('fills the run columns from the stored metrics, loses nothing, and keeps them current', () => {
    // The store as the schema before 0007 wrote it: that migration and every later one left out.
    for (const file of readdirSync(migrationsDir)) if (file >= '0007') rmSync(join(migrationsDir, file));
    const old = openStore(dataDir, { create: true, migrationsDir });
    // In SQL: the repository reads columns of later schemas.
    const addRun = (name: string) => {
      const run = newRun(name);
      const insert = old.connection.prepare(`INSERT INTO runs (name, status, created_at, config, config_hash, seed, env_tags, algorithm) VALUES (?, ?, 0, ?, '', ?, ?, ?)`);
      return { id: Number(insert.run(run.name, run.status, JSON.stringify(run.config), run.seed, JSON.stringify(run.envTags), run.algorithm).lastInsertRowid) };
    };
    const a = addRun('a');
    const b = addRun('b');
    addRun('empty');
    old.metrics.insert([...points(a.id, 6, (it) => it / 10), ...points(b.id, 3, () => 0.9)]);
    old.episodes.insert([{ runId: a.id, iteration: 2, split: 'train', envTag: 'Bandit', groupId: 0, envIndex: 0, seed: 1, totalReward: 1, success: true, numActions: 1, truncated: false, turns: [{ observation: 'o', response: 'r', actions: ['Dragon'], numValidActions: 1, reward: 1, done: true, numTokens: 3 }] }]);
    const before = counts(old);
    old.close();

    const store = openStore(dataDir);
    try {
      expect(counts(store)).toEqual(before);
      expect(store.runs.list().map((r) => [r.name, r.iterations, r.bestValSuccess])).toEqual([
        ['a', 6, 0.6],
        ['b', 3, 0.9],
        ['empty', null, null],
      ]);
      // New rows raise the columns; a replaced value and a truncation lower them again.
      store.metrics.insert(points(b.id, 5, (it) => (it === 5 ? 0.95 : 0.9)));
      expect(store.runs.summary(b.id)).toMatchObject({ iterations: 5, bestValSuccess: 0.95 });
      store.metrics.insert([{ runId: b.id, name: 'val/Bandit/success', iteration: 5, value: 0.1, wallTime: 9 }]);
      expect(store.runs.summary(b.id)?.bestValSuccess).toBe(0.9);
      store.runs.truncateAfter(a.id, 2);
      expect(store.runs.summary(a.id)).toMatchObject({ iterations: 2, bestValSuccess: 0.2 });
      expect(store.episodes.listByIteration(a.id, 2)).toHaveLength(1);
    } finally {
      store.close();
    }
  });
});

describe('runs page', () => {
  let store: Store;
  beforeEach(() => {
    store = openStore(dataDir, { create: true });
    const ids = ['sweep-1-s0', 'sweep-1-s1', 'sweep-2-s0', 'other'].map(
      (name, k) =>
        store.runs.create(
          newRun(name, {
            algorithm: k === 3 ? 'gae' : 'grpo',
            status: k === 1 ? 'failed' : 'completed',
            envTags: k === 3 ? ['FrozenLake'] : ['Bandit'],
            tags: k < 2 ? ['seeds:sweep-1'] : k === 3 ? ['baseline'] : [],
            notes: k === 2 ? 'Learning Rate 3e-4' : '',
          }),
        ).id,
    );
    store.metrics.insert([...points(ids[0], 10, () => 0.5), ...points(ids[1], 4, () => 0.8), ...points(ids[2], 10, () => 0.2)]);
  });
  afterEach(() => store.close());

  const names = (query: Parameters<Store['runs']['page']>[0]) => store.runs.page(query).rows.map((r) => r.name);

  it('returns a row of what the table shows, a config cut to the keys it reads', () => {
    const page = store.runs.page({ limit: 2, withChoices: true });
    expect(page.total).toBe(4);
    expect(page.rows).toHaveLength(2);
    expect(page.rows[0]).toMatchObject({ name: 'sweep-1-s0', iterations: 10, bestValSuccess: 0.5, envTags: ['Bandit'], tags: ['seeds:sweep-1'] });
    expect(page.rows[0].config).toEqual({ trainer: { total_training_steps: 10 }, warm_start: { mode: 'none', steps: null } });
    expect(page.choices).toEqual({ status: ['completed', 'failed'], env: ['Bandit', 'FrozenLake'], algorithm: ['gae', 'grpo'], tag: ['baseline', 'seeds:sweep-1'] });
    expect(page.seedGroupRuns?.map((r) => r.name)).toEqual(['sweep-1-s0', 'sweep-1-s1']);
    expect(store.runs.page({ offset: 2, limit: 2 }).rows.map((r) => r.name)).toEqual(['sweep-2-s0', 'other']);
  });

  it('filters by each select and by a case-insensitive search of name, notes, tags and env', () => {
    expect(names({ status: 'failed' })).toEqual(['sweep-1-s1']);
    expect(names({ algorithm: 'gae' })).toEqual(['other']);
    expect(names({ env: 'FrozenLake' })).toEqual(['other']);
    expect(names({ tag: 'seeds:sweep-1' })).toEqual(['sweep-1-s0', 'sweep-1-s1']);
    expect(names({ search: 'learning rate' })).toEqual(['sweep-2-s0']);
    expect(names({ search: 'BASELINE' })).toEqual(['other']);
    expect(names({ search: 'frozen' })).toEqual(['other']);
    expect(store.runs.page({ search: 'sweep-1', status: 'completed' }).total).toBe(1);
  });

  it('sorts by any column, unknown values last in either direction', () => {
    expect(names({ sort: 'bestValSuccess', descending: true })).toEqual(['sweep-1-s1', 'sweep-1-s0', 'sweep-2-s0', 'other']);
    expect(names({ sort: 'bestValSuccess' })).toEqual(['sweep-2-s0', 'sweep-1-s0', 'sweep-1-s1', 'other']);
    expect(names({ sort: 'progress' })).toEqual(['sweep-1-s1', 'sweep-1-s0', 'sweep-2-s0', 'other']);
    expect(names({ sort: 'name', descending: true })).toEqual(['sweep-2-s0', 'sweep-1-s1', 'sweep-1-s0', 'other']);
    expect(names({ sort: 'id', descending: true })).toEqual(['other', 'sweep-2-s0', 'sweep-1-s1', 'sweep-1-s0']);
  });

  it('returns config and metric columns with their types and sorts by one, runs without it last', () => {
    // Configs that differ: a rate, an estimator, a flag, a list; the last run has none of them.
    const configs = [
      { lr: 3e-4, algorithm: { adv_estimator: 'grpo' }, flag: true, sizes: [4, 4], 'custom-env': { dim: 6 } },
      { lr: 1e-3, algorithm: { adv_estimator: 'gigpo' }, flag: false, sizes: [8], 'custom-env': { dim: 5 } },
      { lr: 1e-4, algorithm: { adv_estimator: 'gae' }, flag: true, sizes: [], 'custom-env': { dim: 7 } },
    ];
    configs.forEach((extra, k) => {
      const run = store.runs.get(k + 1)!;
      store.connection.prepare('UPDATE runs SET config = ? WHERE id = ?').run(JSON.stringify({ ...run.config, ...extra }), run.id);
    });
    const columns = ['lr', 'algorithm.adv_estimator', 'flag', 'sizes', 'custom-env.dim', 'no.such.key'];
    const page = store.runs.page({ columns });
    expect(page.rows.map((r) => r.columnValues)).toEqual([
      [3e-4, 'grpo', true, [4, 4], 6, null],
      [1e-3, 'gigpo', false, [8], 5, null],
      [1e-4, 'gae', true, [], 7, null],
      [null, null, null, null, null, null],
    ]);
    expect(page.total).toBe(4);
    expect(names({ sort: 'config:lr' })).toEqual(['sweep-2-s0', 'sweep-1-s0', 'sweep-1-s1', 'other']);
    expect(names({ sort: 'config:lr', descending: true })).toEqual(['sweep-1-s1', 'sweep-1-s0', 'sweep-2-s0', 'other']);
    expect(names({ sort: 'config:custom-env.dim', status: 'completed' })).toEqual(['sweep-1-s0', 'sweep-2-s0', 'other']);
    // A metric's column is its last logged value (W&B's summary); the run that logs none has null.
    const metricPage = store.runs.page({ columns: ['metric:actor/entropy', 'lr'] });
    expect(metricPage.rows.map((r) => r.columnValues)).toEqual([[1 / 10, 3e-4], [1 / 4, 1e-3], [1 / 10, 1e-4], [null, null]]);
    expect(names({ sort: 'metric:val/Bandit/success', descending: true })).toEqual(['sweep-1-s1', 'sweep-1-s0', 'sweep-2-s0', 'other']);
    expect(names({ sort: 'metric:actor/entropy' })).toEqual(['sweep-1-s0', 'sweep-2-s0', 'sweep-1-s1', 'other']);
    // Without columns a row carries none; a key that is not a dotted name is refused before any SQL.
    expect(store.runs.page({}).rows[0].columnValues).toBeUndefined();
    expect(() => store.runs.page({ columns: ["lr') OR 1=1 --"] })).toThrow(/is not a config key/);
    expect(() => store.runs.page({ sort: 'config:$.lr' })).toThrow(/is not a config key/);
  });

  it('keeps the runs that meet every condition on a config key or a metric, typed as stored', () => {
    const configs = [
      { actor: { lr: 3e-4 }, algorithm: { adv_estimator: 'grpo', bi_level_gae: false }, trainer: { seed: 0 } },
      { actor: { lr: 1e-3 }, algorithm: { adv_estimator: 'gigpo', bi_level_gae: false }, trainer: { seed: 1 } },
      { actor: { lr: 1e-4 }, algorithm: { adv_estimator: 'gae', bi_level_gae: true }, trainer: { seed: 10 } },
    ];
    configs.forEach((extra, k) => {
      const run = store.runs.get(k + 1)!;
      store.connection.prepare('UPDATE runs SET config = ? WHERE id = ?').run(JSON.stringify({ ...run.config, ...extra }), run.id);
    });
    const where = (text: string, query: Parameters<Store['runs']['page']>[0] = {}) => names({ ...query, where: parseRunConditions(text) });
    expect(where('actor.lr<5e-4')).toEqual(['sweep-1-s0', 'sweep-2-s0']);
    expect(where('actor.lr>=1e-3')).toEqual(['sweep-1-s1']);
    // A number compares as a number (10 > 2), not as text ('10' < '2').
    expect(where('trainer.seed>2')).toEqual(['sweep-2-s0']);
    expect(where('algorithm.adv_estimator=gigpo')).toEqual(['sweep-1-s1']);
    expect(where('algorithm.bi_level_gae=true')).toEqual(['sweep-2-s0']);
    // A run without the key (the fourth) meets no condition on it, != included.
    expect(where('algorithm.adv_estimator!=gae')).toEqual(['sweep-1-s0', 'sweep-1-s1']);
    // A metric's last value: 0.5, 0.8 and 0.2; the fourth run logs none.
    expect(where('metric:val/Bandit/success>0.3')).toEqual(['sweep-1-s0', 'sweep-1-s1']);
    expect(where('metric:val/Bandit/success>0.3 and actor.lr<5e-4')).toEqual(['sweep-1-s0']);
    // With the other filters, the sort, the columns and the count.
    const page = store.runs.page({ where: parseRunConditions('metric:val/Bandit/success>0.1'), status: 'completed', sort: 'config:actor.lr', columns: ['actor.lr'] });
    expect(page.rows.map((r) => [r.name, r.columnValues])).toEqual([['sweep-2-s0', [1e-4]], ['sweep-1-s0', [3e-4]]]);
    expect(page.total).toBe(2);
    expect(page.unknownColumns).toBeUndefined();
  });

  it("keeps the runs whose own fields meet a condition: status, name, algorithm, a tag or env among theirs, counts", () => {
    const where = (text: string) => names({ where: parseRunConditions(text) });
    expect(where('status=failed')).toEqual(['sweep-1-s1']);
    expect(where('status!=failed and algorithm=grpo')).toEqual(['sweep-1-s0', 'sweep-2-s0']);
    expect(where("name='other'")).toEqual(['other']);
    expect(where('tag=seeds:sweep-1')).toEqual(['sweep-1-s0', 'sweep-1-s1']);
    expect(where('tag!=seeds:sweep-1')).toEqual(['sweep-2-s0', 'other']);
    expect(where('env=FrozenLake')).toEqual(['other']);
    expect(where('env!=FrozenLake and id>=2')).toEqual(['sweep-1-s1', 'sweep-2-s0']);
    // The last iteration (10, 4, 10, none) and the best validation success (0.5, 0.8, 0.2, none).
    expect(where('iterations<10')).toEqual(['sweep-1-s1']);
    expect(where('best_val_success>=0.5')).toEqual(['sweep-1-s0', 'sweep-1-s1']);
    // A misspelt field is named with the field it is nearest.
    expect(store.runs.page({ where: parseRunConditions('stauts=failed') }).unknownColumns).toEqual([{ column: 'stauts', closest: 'status' }]);
    expect(() => parseRunConditions('tag>a')).toThrow(/tag is a list of the run's tags; it compares with = \(one of them is\) or != \(none is\) only/);
  });

  it('names the columns of an empty answer that no run has, with the nearest one the newest run has', () => {
    const run = store.runs.get(4)!;
    // Three keys end in `lr`: the policy's is the one meant, not the shorter warm start's.
    const config = { ...run.config, warm_start: { lr: 3e-4 }, critic: { optim: { lr: 1e-2 } }, actor_rollout_ref: { actor: { optim: { lr: 1e-3 } } } };
    store.connection.prepare('UPDATE runs SET config = ? WHERE id = ?').run(JSON.stringify(config), run.id);
    store.metrics.insert(points(4, 2, () => 0.4));
    const page = store.runs.page({ where: parseRunConditions('lr<1e-2 and metric:val/Bandit/sucess>0 and trainer.total_training_steps>5 and zzz.qqq=1'), withChoices: true });
    expect(page.total).toBe(0);
    expect(page.unknownColumns).toEqual([
      { column: 'lr', closest: 'actor_rollout_ref.actor.optim.lr' },
      { column: 'metric:val/Bandit/sucess', closest: 'metric:val/Bandit/success' },
      { column: 'zzz.qqq', closest: null },
    ]);
    // A known column that no run meets is an empty answer, not an unknown column.
    expect(store.runs.page({ where: parseRunConditions('trainer.total_training_steps>100') }).unknownColumns).toEqual([]);
    // The value is a parameter: text that looks like SQL is only compared.
    expect(store.runs.page({ where: parseRunConditions("trainer.total_training_steps='10 OR 1=1'") }).total).toBe(0);
  });

  it('returns whole runs by id in the order asked, leaving unknown ids out', () => {
    expect(store.runs.summaries([3, 99, 1]).map((r) => [r.name, r.config.trainer?.total_training_steps])).toEqual([
      ['sweep-2-s0', 10],
      ['sweep-1-s0', 10],
    ]);
  });
});
