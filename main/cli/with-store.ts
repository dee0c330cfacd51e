import type { Command } from 'commander';
import type { OpenStoreOptions, Store } from '../store/db';
import { StoreError } from '../store/errors';
import { existsSync } from 'node:fs';
import { dataDirOf, isDefaultDataDir } from './context';
import { UserError } from './errors';

/**
 * Opens the store of the command's data folder, runs `fn`, and closes it. Reading commands
 * never create a data folder, and `reader` ones open a folder this user cannot write read-only; the store's refusals (missing folder, newer schema, unknown run)
 * become UserErrors: exit code 2 and one line on stderr.
 */
export async function withStore<T>(
  command: Command,
  fn: (store: Store) => T | Promise<T>,
  options: Pick<OpenStoreOptions, 'create'> & {
    reader?: boolean;
    /**
     * Runs instead of `fn` when the default data folder does not exist yet: a listing on a new
     * machine has nothing to list, which is no error. A folder named by --data-dir or
     * TURNLAB_DATA_DIR that does not exist is still refused (a mistyped path).
     */
    whenNone?: (dataDir: string) => T;
  } = {},
): Promise<T> {
  if (options.whenNone && isDefaultDataDir(command) && !existsSync(dataDirOf(command))) return options.whenNone(dataDirOf(command));
  // Loaded on use: every turnlab invocation registers every command, so registering must
  // not pull in SQLite.
  const { openStore } = await import('../store/db');
  let store: Store;
  try {
    // The desktop app runs trainers as Electron-as-Node, whose ABI needs its own SQLite build.
    const open = (readOnly: boolean) =>
      openStore(dataDirOf(command), {
        create: options.create ?? false,
        readOnly,
        nativeBinding: process.env.TURNLAB_SQLITE_BINDING || undefined,
      });
    try {
      store = open(false);
    } catch (error) {
      // A reading command still works on a folder this user cannot write.
      if (!(options.reader && error instanceof StoreError && error.code === 'DATA_DIR_UNWRITABLE')) throw error;
      store = open(true);
    }
  } catch (error) {
    throw asUserError(error);
  }
  try {
    return await fn(store);
  } catch (error) {
    throw asUserError(error);
  } finally {
    store.close();
  }
}

export function asUserError(error: unknown): unknown {
  return error instanceof StoreError ? new UserError(error.message) : error;
}

/** What a listing says on a machine that has not trained yet. */
export function noDataYet(dataDir: string, what: string): string {
  return `no ${what} yet: the data folder ${dataDir} does not exist until the first training (turnlab train --config bandit)`;
}
