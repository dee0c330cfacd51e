import type { Command } from 'commander';
import { resolveDataDir } from '../paths';
import { UserError } from './errors';

/** Options every command inherits from the root program. */
export interface GlobalOptions {
  dataDir?: string;
}

/** The data folder chosen by `--data-dir`, `TURNLAB_DATA_DIR` or the platform default. */
export function dataDirOf(command: Command): string {
  const opts = command.optsWithGlobals<GlobalOptions>();
  // `--data-dir "$DIR"` with DIR unset would otherwise mean the desktop app's own folder.
  if (opts.dataDir !== undefined && opts.dataDir.trim() === '') {
    throw new UserError('--data-dir is empty (an unset shell variable?); name a folder, or leave the option out for TURNLAB_DATA_DIR or the desktop app\'s folder');
  }
  return resolveDataDir(opts.dataDir);
}

/** Whether the data folder is the default one (neither `--data-dir` nor `TURNLAB_DATA_DIR` names it). */
export function isDefaultDataDir(command: Command): boolean {
  return command.optsWithGlobals<GlobalOptions>().dataDir === undefined && !process.env.TURNLAB_DATA_DIR;
}
