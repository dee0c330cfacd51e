import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, cpSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { loadMigrations, migrationChecksum } from '../../main/store/migrate';
import { seedStore, type TempDir } from '../helpers/fixtures';
import { migrationsSandbox } from './migrations-sandbox';

let temp: TempDir;
let dataDir: string;
let migrationsDir: string;

beforeEach(() => ({ temp, dataDir, migrationsDir } = migrationsSandbox()));

afterEach(() => temp.cleanup());

const dbFile = (dir = dataDir): string => join(dir, 'turnlab.sqlite');
const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

function rawQuery<T>(sql: string, file = dbFile()): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

const shipped = loadMigrations();
const latest = shipped[shipped.length - 1].version;
const FUTURE = 99;

/** A migration that only a "newer TurnLab" has. */
function addFutureMigration(): void {
  writeFileSync(join(migrationsDir, `00${FUTURE}_future.sql`), 'CREATE TABLE future_things (id INTEGER PRIMARY KEY);\n');
}

describe('migrations', () => {
  it('creates a fresh database in WAL mode with every table and every migration recorded', () => {
    const store = openStore(dataDir, { create: true });
    const fk = () => store.metrics.insert([{ runId: 42, name: 'x', iteration: 1, value: 1, wallTime: 1 }]);
    expect(fk).toThrow(/FOREIGN KEY/);
    store.close();

    const tables = rawQuery<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).map(
      (t) => t.name,
    );
    expect(tables).toEqual(
      expect.arrayContaining(['checkpoints', 'episodes', 'metrics', 'run_logs', 'runs', 'schema_migrations', 'turns']),
    );
    const migrations = loadMigrations();
    const [migration] = migrations;
    expect(migration.name).toBe('0001_initial.sql');
    expect(rawQuery('SELECT version, name, checksum FROM schema_migrations ORDER BY version')).toEqual(
      migrations.map((m) => ({ version: m.version, name: m.name, checksum: m.checksum })),
    );
    expect(migration.checksum).toBe(createHash('sha256').update(migration.sql).digest('hex'));
    expect(rawQuery('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    const indexes = rawQuery<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'index'`).map((i) => i.name);
    expect(indexes).toEqual(expect.arrayContaining(['metrics_run_iteration', 'episodes_run']));
  });

  it('reopens an up-to-date database without applying or changing anything', () => {
    const first = openStore(dataDir, { create: true });
    seedStore(first, { iterations: 2 });
    first.close();
    const recorded = rawQuery('SELECT * FROM schema_migrations');
    const before = sha(dbFile());

    for (let i = 0; i < 2; i++) {
      const again = openStore(dataDir);
      expect(again.runs.list()).toHaveLength(3);
      again.close();
    }
    expect(rawQuery('SELECT * FROM schema_migrations')).toEqual(recorded);
    expect(sha(dbFile())).toBe(before);
  });

  it('applies a new migration to an older database, and only that one', () => {
    openStore(dataDir, { create: true }).close();
    addFutureMigration();
    openStore(dataDir, { migrationsDir }).close();
    expect(rawQuery<{ version: number }>('SELECT version FROM schema_migrations').map((r) => r.version)).toEqual([
      ...shipped.map((m) => m.version),
      FUTURE,
    ]);
    expect(rawQuery(`SELECT name FROM sqlite_master WHERE name = 'future_things'`)).toHaveLength(1);
  });

  it('refuses a database whose applied migration was edited, leaving the file as it was', () => {
    openStore(dataDir, { create: true, migrationsDir }).close();
    appendFileSync(join(migrationsDir, '0001_initial.sql'), '\nCREATE TABLE sneaky (id INTEGER);\n');
    const before = sha(dbFile());

    expect(() => openStore(dataDir, { migrationsDir })).toThrow(
      /migration 0001_initial\.sql was changed after it was applied \(checksum [0-9a-f]{12} recorded/,
    );
    expect(sha(dbFile())).toBe(before);
    expect(rawQuery(`SELECT name FROM sqlite_master WHERE name = 'sneaky'`)).toEqual([]);
  });

  it('does not mistake CRLF line endings for an edit', () => {
    const file = join(migrationsDir, '0001_initial.sql');
    const text = readFileSync(file, 'utf8');
    expect(migrationChecksum(text.replace(/\n/g, '\r\n'))).toBe(migrationChecksum(text));
  });

  it('refuses a database from a newer TurnLab, leaving the file as it was', () => {
    addFutureMigration();
    openStore(dataDir, { create: true, migrationsDir }).close();
    const before = sha(dbFile());

    expect(() => openStore(dataDir)).toThrow(new RegExp(`was created by a newer TurnLab \\(schema ${FUTURE}, this build knows up to ${latest}\\)`));
    expect(sha(dbFile())).toBe(before);
  });

  it('refuses a newer database whose changes still sit in the WAL without checkpointing them', () => {
    // A writer that died leaves committed frames in -wal; closing a read-write connection
    // would copy them into the main file. The refusal must not.
    addFutureMigration();
    const live = openStore(dataDir, { create: true, migrationsDir });
    const crashed = join(temp.dir, 'crashed');
    cpSync(dataDir, crashed, { recursive: true });
    live.close();
    const wal = `${dbFile(crashed)}-wal`;
    expect(statSync(wal).size).toBeGreaterThan(0);
    const before = sha(dbFile(crashed));

    expect(() => openStore(crashed)).toThrow(new RegExp(`newer TurnLab \\(schema ${FUTURE}`));
    expect(sha(dbFile(crashed))).toBe(before);
    expect(statSync(wal).size).toBeGreaterThan(0);
  });

  it('refuses a file that is not SQLite, and never creates a missing folder or database when reading', () => {
    expect(() => openStore(dataDir)).toThrow(/data folder .* does not exist/);
    expect(existsSync(dataDir)).toBe(false);

    openStore(dataDir, { create: true }).close();
    const other = join(temp.dir, 'other');
    cpSync(dataDir, other, { recursive: true });
    const garbage = dbFile(other);
    writeFileSync(garbage, 'this is not a database, just text '.repeat(200));
    expect(() => openStore(other)).toThrow(/is not a TurnLab database/);
    expect(readFileSync(garbage, 'utf8')).toMatch(/^this is not a database/);

    const empty = join(temp.dir, 'empty');
    cpSync(migrationsDir, empty, { recursive: true }); // a folder without turnlab.sqlite
    expect(() => openStore(empty)).toThrow(/no TurnLab database in/);
    expect(existsSync(dbFile(empty))).toBe(false);
  });

  it('loads SQLite from the nativeBinding it is given (the desktop app passes its Electron build)', () => {
    const bogus = join(temp.dir, 'electron', 'better_sqlite3.node');
    expect(() => openStore(dataDir, { create: true, nativeBinding: bogus })).toThrow(/electron\/better_sqlite3\.node/);
    const real = createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
    const store = openStore(dataDir, { create: true, nativeBinding: real });
    expect(store.integrityCheck()).toEqual(['ok']);
    store.close();
  });

  it('reports a data folder that is a file', () => {
    const file = join(temp.dir, 'plain-file');
    copyFileSync(join(migrationsDir, '0001_initial.sql'), file);
    expect(() => openStore(file)).toThrow(/is not a folder/);
  });
});
