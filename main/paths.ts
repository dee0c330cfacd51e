import { homedir } from 'node:os';
import { join } from 'node:path';

export const PRODUCT_NAME = 'TurnLab';
export const DB_FILE_NAME = 'turnlab.sqlite';
/** The file that makes a data folder a run bundle (main/bundle/manifest.ts); the store reads it too. */
export const BUNDLE_MANIFEST = 'turnlab-bundle.json';

/**
 * Electron's `app.getPath('userData')` for the product name, computed without Electron so the
 * CLI and the desktop app agree on one folder and a run trained from the CLI shows up in the app.
 */
export function defaultDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', PRODUCT_NAME);
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), PRODUCT_NAME);
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), PRODUCT_NAME);
}

/** `--data-dir` wins over `TURNLAB_DATA_DIR`, which wins over the platform default. */
export function resolveDataDir(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  return flag || env.TURNLAB_DATA_DIR || defaultDataDir(process.platform, env);
}

export function dbPath(dataDir: string): string {
  return join(dataDir, DB_FILE_NAME);
}

export function checkpointsDir(dataDir: string): string {
  return join(dataDir, 'checkpoints');
}

/** Where `trainer.logger: [tensorboard]` writes runs' event files unless $TENSORBOARD_DIR says otherwise. */
export function tensorBoardDir(dataDir: string): string {
  return join(dataDir, 'tensorboard');
}
