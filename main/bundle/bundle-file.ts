import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { readCheckpointFiles } from '../../trainer-core';
import { dbPath } from '../paths';
import { loadMigrations, pendingMigrations, readAppliedMigrations } from '../store/migrate';
import { BundleError, readManifest, type BundleManifest } from './manifest';

/** A bundle opened read-only and checked whole: its manifest, its SQLite file, its checkpoints. */
export interface OpenBundle {
  dir: string;
  manifest: BundleManifest;
  db: Database.Database;
  file: string;
}

function describeSqliteError(file: string, error: unknown): BundleError {
  return new BundleError(`${file} is damaged or truncated (SQLite says: ${(error as Error).message}); copy or export the bundle again`);
}

/**
 * Opens a bundle read-only, as the workbench does while a sweep still writes it, and refuses one
 * whose manifest, SQLite file or checkpoint folders are damaged, naming the file. `verify` also
 * runs SQLite's integrity check and reads every checkpoint file against its sha256 (import does).
 */
export function openBundle(folder: string, options: { verify?: boolean; nativeBinding?: string } = {}): OpenBundle {
  const dir = resolve(folder);
  const manifest = readManifest(dir);
  const file = dbPath(dir);
  if (!existsSync(file)) throw new BundleError(`${file} not found: the bundle has no runs yet (its task may not have started)`);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, nativeBinding: options.nativeBinding });
    db.pragma('busy_timeout = 5000');
  } catch (error) {
    throw describeSqliteError(file, error);
  }
  try {
    if (options.verify) {
      const problems = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
      if (problems.length !== 1 || problems[0] !== 'ok') throw new BundleError(`${file} is damaged or truncated (SQLite's integrity check: ${problems[0]}); copy or export the bundle again`);
    }
    try {
      pendingMigrations(readAppliedMigrations(db), loadMigrations(), file);
    } catch (error) {
      throw new BundleError(`${file}: ${(error as Error).message}`);
    }
    if (options.verify) {
      const checkpoints = db.prepare('SELECT path FROM checkpoints ORDER BY id').all() as Array<{ path: string }>;
      for (const { path } of checkpoints) {
        try {
          readCheckpointFiles(resolve(dir, path));
        } catch (error) {
          // The bundle's own copy is damaged or incomplete; the run it came from has the files.
          throw new BundleError(`bundle ${dir}: ${(error as Error).message}; copy or export the bundle again`);
        }
      }
    }
  } catch (error) {
    db.close();
    throw error instanceof BundleError ? error : describeSqliteError(file, error);
  }
  return { dir, manifest, db, file };
}

/** Runs `fn` over one consistent snapshot of a bundle's file (a read transaction). */
export function readSnapshot<T>(bundle: OpenBundle, fn: () => T): T {
  bundle.db.exec('BEGIN');
  try {
    return fn();
  } finally {
    bundle.db.exec('COMMIT');
  }
}

export interface BundleRunRow {
  id: number;
  name: string;
  status: string;
  parent_run_id: number | null;
  trainer_heartbeat_at: number | null;
  seed: number;
  tags: string;
  created_at: number;
  config_hash: string | null;
}

export function bundleRuns(bundle: OpenBundle): BundleRunRow[] {
  try {
    return bundle.db.prepare('SELECT id, name, status, parent_run_id, trainer_heartbeat_at, seed, tags, created_at, config_hash FROM runs ORDER BY id').all() as BundleRunRow[];
  } catch (error) {
    throw describeSqliteError(bundle.file, error);
  }
}
