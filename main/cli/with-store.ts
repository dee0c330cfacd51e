import type { Command } from 'commander';
import type { OpenStoreOptions, Store } from '../store/db';
import { StoreError } from '../store/errors';
import { dataDirOf } from './context';
import { UserError } from './errors';

/**
 * Opens the store of the command's data folder, runs `fn`, and closes it. Reading commands
 * never create a data folder; the store's refusals (missing folder, newer schema, unknown run)
 * become UserErrors: exit code 2 and one line on stderr.
 */
export async function withStore<T>(
  command: Command,
  fn: (store: Store) => T | Promise<T>,
  options: Pick<OpenStoreOptions, 'create'> = {},
): Promise<T> {
  // Loaded on use: every turnlab invocation registers every command, so registering must
  // not pull in SQLite.
  const { openStore } = await import('../store/db');
  let store: Store;
  try {
    // The desktop app runs trainers as Electron-as-Node, whose ABI needs its own SQLite build.
    store = openStore(dataDirOf(command), {
      create: options.create ?? false,
      nativeBinding: process.env.TURNLAB_SQLITE_BINDING || undefined,
    });
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
