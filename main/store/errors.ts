import { dirname } from 'node:path';

/**
 * Why the store refused something the caller can fix or must be told about: a missing data
 * folder, a database written by a newer TurnLab, an edited migration, an unknown run. The CLI
 * turns these into exit code 2; the desktop app shows the message.
 */
export type StoreErrorCode =
  | 'DATA_DIR_MISSING'
  | 'DATA_DIR_UNREADABLE'
  | 'DATA_DIR_UNWRITABLE'
  | 'DB_MISSING'
  | 'NOT_A_DATABASE'
  | 'SCHEMA_NEWER'
  | 'MIGRATION_CHANGED'
  | 'MIGRATION_MISSING'
  | 'MIGRATION_OUT_OF_ORDER'
  | 'MIGRATION_BROKE_FOREIGN_KEYS'
  | 'RUN_NOT_FOUND'
  | 'RUN_AMBIGUOUS'
  | 'INVALID_INPUT'
  | 'DB_FULL'
  | 'DB_UNWRITABLE'
  /** A live process of its own owns (trains) the run. */
  | 'RUN_BUSY';

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string) {
    super(message);
    this.name = 'StoreError';
    this.code = code;
  }
}

/**
 * A failed write to `file`, in words a user can act on: SQLite's "database or disk is full" names
 * neither the file nor the disk. Other errors are returned unchanged.
 */
export function describeWriteError(error: unknown, file: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return error;
  if (code === 'SQLITE_FULL') {
    return new StoreError('DB_FULL', `the database ${file} is full: free space on the disk that holds ${dirname(file)}, then resume the run (SQLITE_FULL)`);
  }
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN') {
    return new StoreError('DB_UNWRITABLE', `cannot write the database ${file}: ${(error as Error).message} (${code})`);
  }
  return error;
}
