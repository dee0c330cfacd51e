import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { defaultMigrationsDir } from '../../main/store/migrate';
import { makeTempDir, type TempDir } from '../helpers/fixtures';

/** A temp folder with an empty data folder and a copy of the shipped migrations a test may add to. */
export function migrationsSandbox(): { temp: TempDir; dataDir: string; migrationsDir: string } {
  const temp = makeTempDir();
  const migrationsDir = join(temp.dir, 'migrations');
  cpSync(defaultMigrationsDir(), migrationsDir, { recursive: true });
  return { temp, dataDir: join(temp.dir, 'data'), migrationsDir };
}
