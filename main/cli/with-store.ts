import type { Command } from 'commander';
import type { OpenStoreOptions, Store } from '../store/db';
import { StoreError } from '../store/errors';
import { dataDirOf } from './context';
import { UserError } from './errors';

/**
 * Opens the store of the command's data folder, runs `fn`, and closes it. Reading commands
 * never create a data folder, and `reader` ones open a folder this user cannot write read-only; the store's refusals (missing folder, newer schema, unknown run)
 * become UserErrors: exit code 2 and one line on stderr.
 */
export async function withStore<T>(
  command: Command,
  fn: (store: Store) => T | Promise<T>,
  options: Pick<OpenStoreOptions, 'create'> & { reader?: boolean } = {},
): Promise<T> {
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
