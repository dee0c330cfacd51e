import type { Command } from 'commander';
import { resolveDataDir } from '../paths';

/** Options every command inherits from the root program. */
export interface GlobalOptions {
  dataDir?: string;
}

/** The data folder chosen by `--data-dir`, `TURNLAB_DATA_DIR` or the platform default. */
export function dataDirOf(command: Command): string {
  const opts = command.optsWithGlobals<GlobalOptions>();
  return resolveDataDir(opts.dataDir);
}
