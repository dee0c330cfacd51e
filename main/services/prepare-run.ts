import type { RunConfig } from '../../trainer-core/config/schema';
import { selectBackend, type BackendChoice } from '../../trainer-core/backend';
import { EnvConfigError } from '../../trainer-core/envs/errors';
import { loadEnvSpecResolver } from '../../trainer-core/rollout/env-specs';
import { EnvStateManager, type EnvSpecResolver } from '../../trainer-core/rollout/es-manager';

export interface PreparedRun {
  resolveSpec: EnvSpecResolver;
  backend: BackendChoice;
}

/**
 * Everything a run needs that can fail on the user's input, done before any run row exists or
 * any stored iteration is removed: the environments (custom modules imported and probed, each
 * split's envs built with their options) and the compute backend started. A failure here
 * leaves the store as it was, so no run is left `queued` forever.
 */
export async function prepareRun(cfg: RunConfig, baseDir: string, log?: (line: string) => void): Promise<PreparedRun> {
  const resolveSpec = await loadEnvSpecResolver(cfg, ['train', 'val'], baseDir);
  for (const split of ['train', 'val'] as const) {
    try {
      new EnvStateManager(cfg, split, { resolveSpec });
    } catch (error) {
      if (error instanceof EnvConfigError) throw error;
      throw new EnvConfigError(`es_manager.${split}: the environments cannot be built: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const backend = await selectBackend(cfg.trainer.backend, log);
  return { resolveSpec, backend };
}
