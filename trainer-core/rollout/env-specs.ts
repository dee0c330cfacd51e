import type { RunConfig } from '../config/schema';
import { resolveEnvSpec } from '../envs/registry';
import type { EnvSpec } from '../envs/types';
import type { EnvSpecResolver, Split } from './es-manager';

/**
 * Loads, ahead of the rollout, the spec of every tag a split uses: built-in types from the
 * registry, custom envs from their module (`module`, or an `env_type` that is a path), resolved
 * against `baseDir`. The returned resolver is synchronous, as EnvStateManager needs.
 */
export async function loadEnvSpecResolver(cfg: RunConfig, splits: readonly Split[], baseDir = process.cwd()): Promise<EnvSpecResolver> {
  const byTag = new Map<string, EnvSpec>();
  for (const split of splits) {
    for (const tag of cfg.es_manager[split].env_configs.tags) {
      if (byTag.has(tag)) continue;
      const envCfg = cfg.custom_envs[tag];
      byTag.set(tag, await resolveEnvSpec(envCfg.module ?? envCfg.env_type, baseDir));
    }
  }
  return (_envType, tag) => {
    const spec = byTag.get(tag);
    if (!spec) throw new Error(`no environment loaded for tag \`${tag}\``);
    return spec;
  };
}
