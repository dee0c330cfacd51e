import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BUNDLE_MANIFEST, dbPath } from '../paths';
import { FolderError, makeFolder } from '../../trainer-core';
import { StoreError } from './errors';
import { applyMigrations, loadMigrations, pendingMigrations, readAppliedMigrations } from './migrate';
import { CheckpointsRepository } from './repositories/checkpoints';
import { EpisodesRepository } from './repositories/episodes';
import { EvaluationsRepository } from './repositories/evaluations';
import { MetricsRepository } from './repositories/metrics';
import { RunsRepository } from './repositories/runs';
import { RunLogsRepository } from './repositories/run-logs';
import { SeedQueueRepository } from './repositories/seed-queue';
import { SweepPlansRepository } from './repositories/sweep-plans';
import { TurnsRepository } from './repositories/turns';

export interface OpenStoreOptions {
  /** Create the data folder and the database when missing. Readers leave this off. */
  create?: boolean;
  /**
   * Path to a better_sqlite3.node built for the running ABI; the desktop app passes its
   * Electron build, Node uses the default.
   */
  nativeBinding?: string;
  /** Where the numbered .sql files lie; defaults to the `migrations/` folder of this tree. */
  migrationsDir?: string;
  /** How long a write waits for another process's write lock (ms). */
  busyTimeoutMs?: number;
  /**
   * Open for reading only: a data folder this user cannot write still opens (a colleague's
   * results, a read-only mount). Writes through such a store fail.
   */
  readOnly?: boolean;
}

/** The one SQLite file of a data folder, migrated, with a repository per table. */
export class Store {
  readonly runs: RunsRepository;
  readonly metrics: MetricsRepository;
  readonly episodes: EpisodesRepository;
  readonly turns: TurnsRepository;
  readonly checkpoints: CheckpointsRepository;
  readonly evaluations: EvaluationsRepository;
  readonly logs: RunLogsRepository;
  readonly seedQueue: SeedQueueRepository;
  readonly sweepPlans: SweepPlansRepository;

  constructor(
    private readonly db: Database.Database,
    readonly dataDir: string,
    readonly file: string,
    private readonly nativeBinding?: string,
  ) {
    this.runs = new RunsRepository(db);
    this.metrics = new MetricsRepository(db);
    this.episodes = new EpisodesRepository(db);
    this.turns = new TurnsRepository(db);
    this.checkpoints = new CheckpointsRepository(db);
    this.evaluations = new EvaluationsRepository(db, this.episodes);
    this.logs = new RunLogsRepository(db);
    this.seedQueue = new SeedQueueRepository(db);
    this.sweepPlans = new SweepPlansRepository(db);
  }

  /** Runs `fn` in one transaction; repository batches inside it join it. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /**
   * A read-only view of the database as it stands now: one read transaction on a connection of
   * its own, so rows other processes (or this one) commit or delete later never show in it.
   * Exports read through one, however long the reader downstream takes. Call `end` when done.
   */
  openSnapshot(): { store: Store; end(): void } {
    // A store read from an in-memory copy (a read-only folder) never changes.
    if (this.db.memory) return { store: this, end: () => {} };
    const db = new Database(this.file, { readonly: true, fileMustExist: true, nativeBinding: this.nativeBinding });
    try {
      db.pragma(`busy_timeout = ${this.db.pragma('busy_timeout', { simple: true }) as number}`);
      db.exec('BEGIN');
      // A deferred transaction takes its snapshot at its first read.
      db.prepare('SELECT count(*) FROM runs').get();
    } catch (error) {
      db.close();
      throw describeOpenError(error, this.file);
    }
    const snapshot = new Store(db, this.dataDir, this.file, this.nativeBinding);
    return {
      store: snapshot,
      end: () => {
        if (db.inTransaction) db.exec('COMMIT');
        db.close();
      },
    };
  }

  /** `PRAGMA integrity_check`: ['ok'] for a sound file, else the problems found. */
  integrityCheck(): string[] {
    return (this.db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
  }

  /** Opened for reading only (a data folder this user cannot write). */
  get readOnly(): boolean {
    return this.db.readonly;
  }

  /** The connection itself, for bulk copies between two stores (main/bundle/copy-run.ts). */
  get connection(): Database.Database {
    return this.db;
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function fsCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException)?.code;
}

/** Creates the data folder, or says which parent refused and why. */
function createDataDir(dataDir: string): void {
  try {
    makeFolder(dataDir);
  } catch (error) {
    if (!(error instanceof FolderError)) throw error;
    throw new StoreError('DATA_DIR_UNWRITABLE', `cannot create the data folder ${dataDir}: ${error.message}; choose another with --data-dir or TURNLAB_DATA_DIR`);
  }
}

function checkDataDir(dataDir: string, create: boolean, readOnly: boolean): void {
  let isDir: boolean;
  try {
    isDir = statSync(dataDir).isDirectory();
  } catch (error) {
    if (fsCode(error) !== 'ENOENT' && fsCode(error) !== 'ENOTDIR') {
      throw new StoreError('DATA_DIR_UNREADABLE', `cannot read the data folder ${dataDir}: ${(error as Error).message}`);
    }
    if (!create) {
      throw new StoreError(
        'DATA_DIR_MISSING',
        `data folder ${dataDir} does not exist: nothing was trained with it yet (the first training creates it), or choose another with --data-dir or TURNLAB_DATA_DIR`,
      );
    }
    createDataDir(dataDir);
    isDir = true;
  }
  if (!isDir) throw new StoreError('DATA_DIR_UNREADABLE', `data folder ${dataDir} is not a folder`);
  try {
    accessSync(dataDir, readOnly ? constants.R_OK | constants.X_OK : constants.R_OK | constants.W_OK | constants.X_OK);
  } catch {
    if (readOnly) throw new StoreError('DATA_DIR_UNREADABLE', `data folder ${dataDir} is not readable by this user`);
    // SQLite writes the -wal and -shm files beside the database.
    throw new StoreError('DATA_DIR_UNWRITABLE', `data folder ${dataDir} is not writable by this user (reading commands such as 'turnlab runs' still work; choose another with --data-dir to train)`);
  }
  // A folder this user may write holding a database file they may not (left by `sudo turnlab`):
  // SQLite would open it and refuse only the first write, halfway through a command.
  const file = dbPath(dataDir);
  if (!readOnly && existsSync(file)) {
    try {
      accessSync(file, constants.R_OK | constants.W_OK);
    } catch {
      throw new StoreError('DATA_DIR_UNWRITABLE', `${file} is not writable by this user (reading commands such as 'turnlab runs' still work; give it back with chown, or choose another data folder with --data-dir)`);
    }
  }
}

function describeOpenError(error: unknown, file: string): unknown {
  const code = (error as { code?: string })?.code;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new StoreError('NOT_A_DATABASE', `${file} is not a TurnLab database (SQLite says: ${(error as Error).message})`);
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM' || code === 'SQLITE_READONLY') {
    return new StoreError('DATA_DIR_UNREADABLE', `cannot open ${file}: ${(error as Error).message}`);
  }
  return error;
}

/**
 * Checks an existing file against this build's migrations through a read-only connection,
 * before anything could write to it: a refused file keeps every byte, and a read-only
 * connection never checkpoints a leftover WAL into the main file when it closes.
 */
function preflight(file: string, options: OpenStoreOptions, migrations: ReturnType<typeof loadMigrations>): void {
  const db = new Database(file, { readonly: true, fileMustExist: true, nativeBinding: options.nativeBinding });
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    pendingMigrations(readAppliedMigrations(db), migrations, file);
  } finally {
    db.close();
  }
}

/**
 * Opens (and if asked creates) `turnlab.sqlite` in `dataDir`: WAL mode, foreign keys on, a busy
 * timeout for the trainer and the app writing and reading at once, then pending migrations.
 * Refuses, without changing the file, a database from a newer TurnLab or one whose applied
 * migrations were edited.
 */
export function openStore(dataDir: string, options: OpenStoreOptions = {}): Store {
  const create = options.create ?? false;
  checkDataDir(dataDir, create, options.readOnly ?? false);
  const file = dbPath(dataDir);
  const migrations = loadMigrations(options.migrationsDir);
  const exists = existsSync(file);
  if (!exists && !create) {
    throw new StoreError(
      'DB_MISSING',
      `no TurnLab database in ${dataDir} (${file} does not exist; no run has been recorded there yet)`,
    );
  }
  if (options.readOnly) return openReader(dataDir, file, options, migrations);
  let db: Database.Database | undefined;
  try {
    if (exists) preflight(file, options, migrations);
    db = new Database(file, { fileMustExist: !create, nativeBinding: options.nativeBinding });
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    if (existsSync(join(dataDir, BUNDLE_MANIFEST))) {
      // A run bundle (main/bundle/manifest.ts) lies on a shared, often network, filesystem where
      // WAL's shared memory does not work: a rollback journal there, and every commit synced.
      db.pragma('journal_mode = DELETE');
      db.pragma('synchronous = FULL');
    } else {
      db.pragma('journal_mode = WAL');
      // NORMAL is crash-safe in WAL mode: a killed process loses no committed transaction;
      // only a power cut may drop the last few.
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
    applyMigrations(db, migrations, file);
    return new Store(db, dataDir, file, options.nativeBinding);
  } catch (error) {
    db?.close();
    throw describeOpenError(error, file);
  }
}

function isWritableFolder(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * SQLite refuses to open an in-memory image whose header says WAL (bytes 18 and 19, the file
 * format's write and read versions, are 2); the copy is marked rollback-journal (1) instead.
 */
function asRollbackImage(image: Buffer): Buffer {
  if (image.length >= 20) image[18] = image[19] = 1;
  return image;
}

/**
 * A read-only connection. SQLite needs to create the -shm file beside a WAL database even to
 * read it; in a folder this user cannot write, a database closed cleanly (no -wal file, so the
 * main file holds every commit) is read from a copy in memory instead.
 */
function openReader(dataDir: string, file: string, options: OpenStoreOptions, migrations: ReturnType<typeof loadMigrations>): Store {
  let db: Database.Database | undefined;
  try {
    const copy = !isWritableFolder(dataDir) && !existsSync(`${file}-wal`);
    db = copy
      ? new Database(asRollbackImage(readFileSync(file)), { readonly: true, nativeBinding: options.nativeBinding })
      : new Database(file, { readonly: true, fileMustExist: true, nativeBinding: options.nativeBinding });
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    const pending = pendingMigrations(readAppliedMigrations(db), migrations, file);
    if (pending.length) {
      throw new StoreError('DB_UNWRITABLE', `${file} needs ${pending.length} migration(s) from this TurnLab version, which a reading command does not apply; run a writing command (train, serve) on it once`);
    }
    return new Store(db, dataDir, file, options.nativeBinding);
  } catch (error) {
    db?.close();
    throw describeOpenError(error, file);
  }
}
