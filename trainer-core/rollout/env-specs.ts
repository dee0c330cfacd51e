import { isAbsolute, resolve } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { RunConfig } from '../config/schema';
import { trainStageTags } from '../config/train-stages';
import { EnvConfigError } from '../envs/errors';
import { parseEnvOptions } from '../envs/options';
import { isEnvModulePath, resolveEnvSpec } from '../envs/registry';
import type { EnvSpec } from '../envs/types';
import type { EnvSpecResolver, Split } from './es-manager';

/**
 * Loads, ahead of the rollout, the spec of every tag a split uses: built-in types from the
 * registry, custom envs from their module (`module`, or an `env_type` that is a path), resolved
 * against `baseDir`. Each tag's `env_config` is validated here too, so a misspelt option of a
 * custom env fails before training with the message `turnlab play` gives. The returned resolver
 * is synchronous, as EnvStateManager needs.
 */
export async function loadEnvSpecResolver(cfg: RunConfig, splits: readonly Split[], baseDir = process.cwd()): Promise<EnvSpecResolver> {
  const byTag = new Map<string, EnvSpec>();
  for (const split of splits) {
    for (const tag of split === 'train' ? trainStageTags(cfg) : cfg.es_manager.val.env_configs.tags) {
      if (byTag.has(tag)) continue;
      const envCfg = cfg.custom_envs[tag];
      const spec = await resolveEnvSpec(envCfg.module ?? envCfg.env_type, baseDir).catch((error: unknown) => {
        // A config names several envs: say which key holds the module that failed.
        if (!(error instanceof EnvConfigError) || !isEnvModulePath(envCfg.module ?? envCfg.env_type)) throw error;
        throw new EnvConfigError(`custom_envs.${tag}.${envCfg.module !== undefined ? 'module' : 'env_type'}: ${error.message}`);
      });
      parseEnvOptions(spec, envCfg.env_config, `custom_envs.${tag}.env_config`);
      byTag.set(tag, spec);
    }
  }
  return (_envType, tag) => {
    const spec = byTag.get(tag);
    if (!spec) throw new Error(`no environment loaded for tag \`${tag}\``);
    return spec;
  };
}

/**
 * The config with every custom env module path made absolute against `baseDir` (the config
 * file's folder): the run stores this config, so `eval`, `resume` and the app find the module
 * from any working folder.
 */
export function withAbsoluteModulePaths(cfg: RunConfig, baseDir: string): RunConfig {
  const customEnvs: RunConfig['custom_envs'] = {};
  for (const [tag, envCfg] of Object.entries(cfg.custom_envs)) {
    const path = envCfg.module ?? (isEnvModulePath(envCfg.env_type) ? envCfg.env_type : undefined);
    customEnvs[tag] = path === undefined ? envCfg : { ...envCfg, module: isAbsolute(path) ? path : resolve(baseDir, path) };
  }
  return { ...cfg, custom_envs: customEnvs };
}

/** withAbsoluteModulePaths on a run's unresolved source config (YAML text). */
export function sourceWithAbsoluteModulePaths(sourceYaml: string, baseDir: string): string {
  const source = parseYaml(sourceYaml) as { custom_envs?: Record<string, { module?: unknown; env_type?: unknown }> } | null;
  if (!source?.custom_envs) return sourceYaml;
  for (const envCfg of Object.values(source.custom_envs)) {
    if (!envCfg) continue;
    const path = typeof envCfg.module === 'string' ? envCfg.module : typeof envCfg.env_type === 'string' && isEnvModulePath(envCfg.env_type) ? envCfg.env_type : undefined;
    if (path !== undefined && !path.includes('${')) envCfg.module = isAbsolute(path) ? path : resolve(baseDir, path);
  }
  return stringifyYaml(source, { lineWidth: 0 });
}
