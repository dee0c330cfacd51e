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
 * Applies pending migrations in order, each in its own IMMEDIATE transaction together with its
 * bookkeeping row. The check is repeated inside each transaction because another process (the
 * desktop app and a trainer) may be migrating the same file at the same moment.
 */
export function applyMigrations(db: Database.Database, files: MigrationFile[], dbFile: string): MigrationFile[] {
  const done: MigrationFile[] = [];
  for (const candidate of pendingMigrations(readAppliedMigrations(db), files, dbFile)) {
    const apply = db.transaction(() => {
      const pending = pendingMigrations(readAppliedMigrations(db), files, dbFile);
      if (!pending.some((file) => file.version === candidate.version)) return false;
      db.exec(CREATE_BOOKKEEPING);
      db.exec(candidate.sql);
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
  return done;
}
