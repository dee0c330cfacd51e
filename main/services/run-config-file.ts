// A past run's config as a file to train from (W&B's "rerun", MLflow's reproduce): `turnlab
// train --config run:3` trains again with exactly the config run 3 trained with (every key
// resolved, module paths absolute), overrides applied on top; `turnlab show 3 --config` prints it.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolvedConfigToYaml, type RunConfig } from '../../trainer-core';
import type { Store } from '../store/db';
import type { RunRecord } from '../store/types';

/** `--config run:<id or name>`; a file of that name, should one exist, is the file. */
export const RUN_CONFIG_PREFIX = 'run:';

export function isRunConfigRef(value: string): boolean {
  return value.startsWith(RUN_CONFIG_PREFIX) && !existsSync(value);
}

/** The resolved config a run trained with, as YAML the config loader reads, headed by where it came from. */
export function runConfigYaml(run: Pick<RunRecord, 'id' | 'name' | 'config'>): string {
  return `# The resolved config of run ${run.id} (${run.name}), as TurnLab stored it.\n${resolvedConfigToYaml(run.config as RunConfig)}`;
}

/**
 * Writes the config of the run `ref` names into `<data>/configs/` (beside the workbench's edited
 * configs, so a run can be traced to the file it started from) and returns its path.
 */
export function writeRunConfig(store: Store, ref: string): string {
  const run = store.runs.resolve(ref.slice(RUN_CONFIG_PREFIX.length));
  const dir = join(store.dataDir, 'configs');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `run-${run.id}-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}.yaml`);
  writeFileSync(path, runConfigYaml(run), { flag: 'wx' });
  return path;
}
