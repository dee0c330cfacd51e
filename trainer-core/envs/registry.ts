import { closestName } from '../closest-name';
import { isAbsolute, resolve } from 'node:path';
import { banditRevSpec, banditSpec } from './bandit';
import { countdownSpec } from './countdown';
import { loadCustomEnvSpec } from './custom-loader';
import { EnvConfigError } from './errors';
import { frozenLakeSpec } from './frozen-lake';
import { mathqaSpec } from './mathqa';
import { sokobanSpec } from './sokoban';
import type { EnvSpec } from './types';

const BUILT_IN: readonly EnvSpec[] = [frozenLakeSpec, sokobanSpec, countdownSpec, banditSpec, banditRevSpec, mathqaSpec] as EnvSpec[];

/** Other names configs may use for a built-in type. */
const ALIASES: Readonly<Record<string, string>> = { mathqa: 'metamathqa', frozenlake: 'frozen_lake' };

/** The built-in environments, in the order listings show them. */
export function listEnvSpecs(): EnvSpec[] {
  return [...BUILT_IN];
}

/** The `env_type` configs give a custom environment; its `module` key names the file. */
export const CUSTOM_ENV_TYPE = 'custom';

/** The error for `env_type: custom` without `module:` (`where` is the tag's config key). */
export function missingModuleMessage(where: string): string {
  return `\`${where}.module\` is missing: env_type 'custom' needs the path of the environment module (a .ts or .js file, relative to the config file), e.g. module: ./my-env.ts`;
}

/** The built-in spec for a type name (or alias); an unknown name gets the closest valid one suggested. */
export function getEnvSpec(type: string): EnvSpec {
  if (type === CUSTOM_ENV_TYPE) {
    throw new EnvConfigError(`env_type 'custom' is loaded from a module: give the module's path (a .ts or .js file) instead of 'custom'`);
  }
  const canonical = ALIASES[type] ?? type;
  const spec = BUILT_IN.find((s) => s.type === canonical);
  if (spec) return spec;
  const names = [...BUILT_IN.map((s) => s.type), ...Object.keys(ALIASES)];
  const near = closestName(type, names)!;
  const suggestion = ALIASES[near] ?? near;
  throw new EnvConfigError(`unknown environment '${type}'; did you mean '${suggestion}'?`);
}

/** Whether a name given where an env type is expected is a module path (a custom env) instead. */
export function isEnvModulePath(name: string): boolean {
  return /[/\\]/.test(name) || /\.(m|c)?(t|j)s$/.test(name);
}

/**
 * A built-in spec by type name, or a custom one loaded from a module path (resolved against
 * `baseDir`, default the working folder): what `turnlab play` and configs with `module:` use.
 */
export async function resolveEnvSpec(typeOrModule: string, baseDir = process.cwd()): Promise<EnvSpec> {
  if (!isEnvModulePath(typeOrModule)) return getEnvSpec(typeOrModule);
  return loadCustomEnvSpec(isAbsolute(typeOrModule) ? typeOrModule : resolve(baseDir, typeOrModule));
}
