import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { StoreError } from './errors';

export interface MigrationFile {
  version: number;
  /** File name, e.g. `0001_initial.sql`. */
  name: string;
  sql: string;
  checksum: string;
}

export interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
  appliedAt: number;
}

const MIGRATION_FILE = /^(\d+)_[A-Za-z0-9_-]+\.sql$/;

/** The `migrations/` folder of this source tree, whatever the working directory is. */
export function defaultMigrationsDir(): string {
  return fileURLToPath(new URL('../../migrations/', import.meta.url));
}

/**
 * sha256 of the migration text. Line endings are normalised so that a Windows checkout
 * (CRLF) does not look like an edited migration.
 */
export function migrationChecksum(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');
}

export function loadMigrations(dir: string = defaultMigrationsDir()): MigrationFile[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.sql'));
  } catch (error) {
    throw new Error(`cannot read the migrations folder ${dir}: ${(error as Error).message}`);
  }
  const files = names.map((name) => {
    const match = MIGRATION_FILE.exec(name);
    if (!match) throw new Error(`migration file ${join(dir, name)} is not named NNNN_description.sql`);
    const sql = readFileSync(join(dir, name), 'utf8');
    return { version: Number(match[1]), name, sql, checksum: migrationChecksum(sql) };
  });
  files.sort((a, b) => a.version - b.version);
  for (let i = 1; i < files.length; i++) {
    if (files[i].version === files[i - 1].version) {
      throw new Error(`migrations ${files[i - 1].name} and ${files[i].name} share version ${files[i].version}`);
    }
  }
  return files;
}

/** What the database says was applied; empty for a database TurnLab never migrated. */
export function readAppliedMigrations(db: Database.Database): AppliedMigration[] {
  const table = db
    .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`)
    .get();
  if (!table) return [];
  const rows = db
    .prepare('SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version')
    .all() as Array<{ version: number; name: string; checksum: string; applied_at: number }>;
  return rows.map((row) => ({ version: row.version, name: row.name, checksum: row.checksum, appliedAt: row.applied_at }));
}

/**
 * Checks that the applied migrations are exactly a prefix of the files and returns the ones
 * still to apply. Throws, changing nothing, when the database is newer than this build or a
 * migration it recorded was edited, renamed or removed since.
 */
export function pendingMigrations(applied: AppliedMigration[], files: MigrationFile[], dbFile: string): MigrationFile[] {
  const known = files.length ? files[files.length - 1].version : 0;
  const newest = applied.length ? applied[applied.length - 1].version : 0;
  if (newest > known) {
    throw new StoreError(
      'SCHEMA_NEWER',
      `${dbFile} was created by a newer TurnLab (schema ${newest}, this build knows up to ${known}); update TurnLab to open it`,
    );
  }
  const byVersion = new Map(files.map((file) => [file.version, file]));
  for (const record of applied) {
    const file = byVersion.get(record.version);
    if (!file) {
      throw new StoreError(
        'MIGRATION_MISSING',
        `migration ${record.name} was applied to ${dbFile} but is missing from this build`,
      );
    }
    if (file.name !== record.name || file.checksum !== record.checksum) {
      throw new StoreError(
        'MIGRATION_CHANGED',
        `migration ${record.name} was changed after it was applied (checksum ${record.checksum.slice(0, 12)} recorded, ` +
          `${file.name} now has ${file.checksum.slice(0, 12)}); restore the original file or start a new data folder`,
      );
    }
  }
  const appliedVersions = new Set(applied.map((record) => record.version));
  const pending = files.filter((file) => !appliedVersions.has(file.version));
  const late = pending.find((file) => file.version < newest);
  if (late) {
    throw new StoreError(
      'MIGRATION_OUT_OF_ORDER',
      `migration ${late.name} is older than schema ${newest} of ${dbFile} but was never applied; give it a higher number`,
    );
  }
  return pending;
}

const CREATE_BOOKKEEPING = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT    NOT NULL,
  checksum   TEXT    NOT NULL,
  applied_at INTEGER NOT NULL
)`;

/**
 * Refuses a migration that left rows pointing at nothing: names the first table, the column and
 * the parent table. Runs inside the migration's transaction, so throwing rolls it back.
 */
function checkForeignKeys(db: Database.Database, migration: MigrationFile, dbFile: string): void {
  const violations = db.pragma('foreign_key_check') as Array<{ table: string; rowid: number | null; parent: string; fkid: number }>;
  if (violations.length === 0) return;
  const first = violations[0];
  const keys = db.pragma(`foreign_key_list(${JSON.stringify(first.table)})`) as Array<{ id: number; from: string }>;
  const column = keys.find((key) => key.id === first.fkid)?.from ?? '?';
  const inTable = violations.filter((v) => v.table === first.table).length;
  const others = new Set(violations.map((v) => v.table).filter((table) => table !== first.table));
  throw new StoreError(
    'MIGRATION_BROKE_FOREIGN_KEYS',
    `migration ${migration.name} left ${inTable} row(s) of table ${first.table} whose ${column} points to no row of ` +
      `${first.parent}${others.size ? ` (and rows of ${[...others].join(', ')})` : ''}; it was rolled back, leaving ${dbFile} ` +
      'at the schema before it: fix the migration so every reference stays valid',
  );
}

/**
 * Applies pending migrations in order, each in its own IMMEDIATE transaction together with its
 * bookkeeping row. The check is repeated inside each transaction because another process (the
 * desktop app and a trainer) may be migrating the same file at the same moment.
 *
 * Foreign keys are off while migrations run: rebuilding a table the SQLite way (create the new
 * one, copy, drop the old, rename) with them on would make DROP TABLE delete every old row first
 * and ON DELETE CASCADE empty the child tables. `PRAGMA foreign_key_check` inside each
 * transaction then refuses a migration that left a dangling reference. SQLite ignores the
 * pragma inside a transaction, hence around the loop.
 */
export function applyMigrations(db: Database.Database, files: MigrationFile[], dbFile: string): MigrationFile[] {
  const done: MigrationFile[] = [];
  const todo = pendingMigrations(readAppliedMigrations(db), files, dbFile);
  if (todo.length === 0) return done;
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) === 1;
  db.pragma('foreign_keys = OFF');
  try {
    for (const candidate of todo) {
      const apply = db.transaction(() => {
        const pending = pendingMigrations(readAppliedMigrations(db), files, dbFile);
        if (!pending.some((file) => file.version === candidate.version)) return false;
        db.exec(CREATE_BOOKKEEPING);
        db.exec(candidate.sql);
        checkForeignKeys(db, candidate, dbFile);
        db.prepare('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)').run(
          candidate.version,
          candidate.name,
          candidate.checksum,
          Date.now(),
        );
        return true;
      });
      if (apply.immediate()) done.push(candidate);
    }
  } finally {
    if (foreignKeys) db.pragma('foreign_keys = ON');
  }
  return done;
}
