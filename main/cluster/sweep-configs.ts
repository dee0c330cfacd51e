import { ConfigError, loadRunConfigWithSource, type RunConfig } from '../../trainer-core';
import type { GridAxis, SweepRunPlan } from '../../preload/sweep-plan';

/**
 * Reads every run's config of a sweep before anything starts, so a bad key or value refuses the
 * whole sweep. A grid value reaches the config as an override like `--set`'s; a refusal of one
 * names the `--grid` the user wrote instead, since that is the flag to fix.
 */
export function loadSweepRunConfigs(configPath: string, overrides: readonly string[], runs: readonly SweepRunPlan[], axes: readonly GridAxis[]): RunConfig[] {
  return runs.map((run) => {
    try {
      return loadRunConfigWithSource(configPath, [...overrides, ...run.overrides]).cfg;
    } catch (error) {
      throw error instanceof ConfigError ? namingTheGrid(error, axes) : error;
    }
  });
}

function namingTheGrid(error: ConfigError, axes: readonly GridAxis[]): ConfigError {
  const flags = new Map<string, string>(axes.flatMap((axis) => axis.values.map((value) => [`--set ${axis.key}=${value}`, `--grid ${axis.key}=${axis.values.join(',')} (the value ${value})`] as const)));
  if (!error.issues.some((issue) => issue.origin !== undefined && flags.has(issue.origin))) return error;
  const renamed = new ConfigError(error.issues.map((issue) => ({ ...issue, origin: issue.origin === undefined ? undefined : (flags.get(issue.origin) ?? issue.origin) })));
  let message = error.message;
  for (const [set, grid] of flags) message = message.split(`${set}: `).join(`${grid}: `);
  renamed.message = message;
  return renamed;
}
