import { CUSTOM_ENV_TYPE, getEnvSpec, isEnvModulePath, missingModuleMessage } from '../envs/registry';
import type { z } from 'zod';
import type { EnvSpec } from '../envs/types';
import type { ConfigIssue } from './errors';
import type { RunConfig } from './schema';
import { describeZodIssue, tightestBoundIssues } from './zod-issues';

/**
 * Checks each tag's `env_config` with its environment's own options schema and fills in the
 * env's defaults. Custom envs loaded from a module are checked when the module is loaded.
 */
export function checkEnvOptions(cfg: RunConfig): { cfg: RunConfig; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const customEnvs: RunConfig['custom_envs'] = {};
  for (const [tag, envCfg] of Object.entries(cfg.custom_envs)) {
    customEnvs[tag] = envCfg;
    if (envCfg.module !== undefined || isEnvModulePath(envCfg.env_type)) continue;
    if (envCfg.env_type === CUSTOM_ENV_TYPE) {
      issues.push({ path: ['custom_envs', tag, 'module'], message: missingModuleMessage(`custom_envs.${tag}`) });
      continue;
    }
    let spec: EnvSpec;
    try {
      spec = getEnvSpec(envCfg.env_type);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      issues.push({ path: ['custom_envs', tag, 'env_type'], message: `\`custom_envs.${tag}.env_type\`: ${reason}` });
      continue;
    }
    const result = spec.optionsSchema.safeParse(envCfg.env_config);
    if (result.success) {
      customEnvs[tag] = { ...envCfg, env_config: result.data };
    } else {
      const prefix = ['custom_envs', tag, 'env_config'];
      for (const issue of tightestBoundIssues(result.error.issues)) {
        issues.push(...describeZodIssue(issue, envCfg.env_config, spec.optionsSchema as z.ZodType, prefix));
      }
    }
  }
  return { cfg: { ...cfg, custom_envs: customEnvs }, issues };
}
