// Migrations run with foreign keys off and are checked with `PRAGMA foreign_key_check` after:
// a future migration that rebuilds a referenced table (create new, copy, drop old, rename) must
// keep every child row, and one that leaves a dangling reference is refused and rolled back.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { seedStore, type TempDir } from '../helpers/fixtures';
import { migrationsSandbox } from './migrations-sandbox';

const TABLES = ['runs', 'metrics', 'episodes', 'turns', 'checkpoints'];

let temp: TempDir;
let dataDir: string;
let migrationsDir: string;

beforeEach(() => ({ temp, dataDir, migrationsDir } = migrationsSandbox()));

afterEach(() => temp.cleanup());

function withDb<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'turnlab.sqlite'));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const counts = (): Record<string, number> =>
  withDb((db) => Object.fromEntries(TABLES.map((t) => [t, (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n])));

/** A seeded database at the shipped schema, with a fork so runs also reference runs. */
function seeded(): { parent: number; fork: number } {
  const store = openStore(dataDir, { create: true, migrationsDir });
  const [first] = seedStore(store, { iterations: 3, groups: 2, groupSize: 2 });
  const fork = store.runs.create({ name: 'fork', config: {}, seed: 1, envTags: [], algorithm: 'grpo', parentRunId: first.run.id, parentIteration: 2 });
  store.close();
  return { parent: first.run.id, fork: fork.id };
}

/**
 * The SQLite way to change a table's definition, written against the table as the shipped
 * migrations left it: create `runs_rebuilt` like `runs`, copy, drop `runs`, rename, re-index.
 */
function rebuildRunsMigration(): string {
  return withDb((db) => {
    const table = (db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'runs'`).get() as { sql: string }).sql;
    const indexes = (db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' AND sql IS NOT NULL`).all() as Array<{ sql: string }>).map((i) => `${i.sql};`);
    // Triggers of other tables that write runs (0007's on metrics) are dropped first and made
    // again after: SQLite refuses the rename while a trigger names a table that is gone.
    const triggers = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%runs%'`).all() as Array<{ name: string; sql: string }>;
    return [
      ...triggers.map((t) => `DROP TRIGGER ${t.name};`),
      `${table.replace(/^CREATE TABLE "?runs"?/, 'CREATE TABLE runs_rebuilt')};`,
      'INSERT INTO runs_rebuilt SELECT * FROM runs;',
      'DROP TABLE runs;',
      'ALTER TABLE runs_rebuilt RENAME TO runs;',
      ...indexes,
      ...triggers.map((t) => `${t.sql};`),
    ].join('\n');
  });
}

describe('migrations and foreign keys', () => {
  it('rebuild a referenced table without cascade-deleting child rows, then turn foreign keys back on', () => {
    const { parent, fork } = seeded();
    const before = counts();
    expect(before.metrics).toBeGreaterThan(0);
    writeFileSync(join(migrationsDir, '9999_rebuild_runs.sql'), rebuildRunsMigration());

    const store = openStore(dataDir, { migrationsDir });
    try {
      expect(counts()).toEqual(before);
      expect(withDb((db) => db.pragma('foreign_key_check'))).toEqual([]);
      expect(store.runs.get(fork)?.parentRunId).toBe(parent);
      // Foreign keys are on again: a dangling insert fails, deleting a run cascades.
      expect(() => store.metrics.insert([{ runId: 4242, name: 'x', iteration: 1, value: 1, wallTime: 1 }])).toThrow(/FOREIGN KEY/);
      store.runs.delete(parent);
      expect(withDb((db) => db.prepare('SELECT COUNT(*) AS n FROM metrics WHERE run_id = ?').get(parent))).toEqual({ n: 0 });
    } finally {
      store.close();
    }
    expect(withDb((db) => db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get())).toEqual({ v: 9999 });
  });

  it('refuse and roll back a migration that leaves rows pointing at nothing, naming the table', () => {
    seeded();
    const before = counts();
    writeFileSync(
      join(migrationsDir, '9999_orphan.sql'),
      `CREATE TABLE notes (id INTEGER PRIMARY KEY);\nINSERT INTO metrics (run_id, name, iteration, value, wall_time) VALUES (4242, 'orphan', 1, 1, 1);\n`,
    );
    expect(() => openStore(dataDir, { migrationsDir })).toThrow(
      /^migration 9999_orphan\.sql left 1 row\(s\) of table metrics whose run_id points to no row of runs; it was rolled back/,
    );
    expect(counts()).toEqual(before);
    withDb((db) => {
      expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'notes'`).get()).toBeUndefined();
      expect(db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get()).not.toEqual({ v: 9999 });
    });
  });
});
