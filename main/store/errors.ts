/**
 * Why the store refused something the caller can fix or must be told about: a missing data
 * folder, a database written by a newer TurnLab, an edited migration, an unknown run. The CLI
 * turns these into exit code 2; the desktop app shows the message.
 */
export type StoreErrorCode =
  | 'DATA_DIR_MISSING'
  | 'DATA_DIR_UNREADABLE'
  | 'DB_MISSING'
  | 'NOT_A_DATABASE'
  | 'SCHEMA_NEWER'
  | 'MIGRATION_CHANGED'
  | 'MIGRATION_MISSING'
  | 'MIGRATION_OUT_OF_ORDER'
  | 'RUN_NOT_FOUND'
  | 'RUN_AMBIGUOUS'
  | 'INVALID_INPUT'
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
