import { ConfigError, loadRunConfigWithSource, type RunConfig } from '../../trainer-core';
import { expandGrid, type GridAxis, type GridWords, type SkippedSetting, type SweepRunPlan, type SweepSetting } from '../../preload/sweep-plan';

/**
 * The grid's combinations whose configs load, and those left out. A grid of keys that constrain
 * each other (adv_estimator=gae,grpo by bi_level_gae=true,false) holds a combination no config
 * accepts (GRPO with bi-level GAE); the researcher means the others, as the learning bench's
 * --estimators does, so it is left out and said. A value no combination accepts is a mistake of its
 * own (a misspelt value, a key that does not exist) and refuses the whole sweep, naming its
 * --grid, as does a grid of which nothing is accepted.
 */
export function acceptedSettings(configPath: string, overrides: readonly string[], axes: readonly GridAxis[], words: GridWords = 'flag'): { settings: SweepSetting[]; skipped: SkippedSetting[] } {
  const outcomes = expandGrid(axes, words).map((setting) => {
    try {
      loadRunConfigWithSource(configPath, [...overrides, ...setting.overrides]);
      return { setting, error: null };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return { setting, error };
    }
  });
  const accepted = outcomes.filter((o) => o.error === null);
  for (const [i, axis] of axes.entries()) {
    for (const value of axis.values) {
      if (accepted.some((o) => o.setting.values[i] === value)) continue;
      const refused = outcomes.find((o) => o.setting.values[i] === value && o.error !== null);
      if (refused?.error) throw namingTheGrid(refused.error, axes, words);
    }
  }
  const skipped = outcomes.flatMap((o) => (o.error === null ? [] : [{ setting: o.setting, reason: o.error.issues.map((issue) => issue.message).join('; ') }]));
  return { settings: accepted.map((o) => o.setting), skipped };
}

/**
 * Reads every run's config of a sweep before anything starts, so a bad key or value refuses the
 * whole sweep (acceptedSettings has left out the combinations no config accepts). A grid value reaches the config as an override like `--set`'s; a refusal of one
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

function namingTheGrid(error: ConfigError, axes: readonly GridAxis[], words: GridWords = 'flag'): ConfigError {
  // The New run form has no --grid: its refusal names the line of its grid field.
  const line = (axis: GridAxis) => (words === 'flag' ? `--grid ${axis.key}=${axis.values.join(',')}` : `the grid line '${axis.key}=${axis.values.join(',')}'`);
  const flags = new Map<string, string>(axes.flatMap((axis) => axis.values.map((value) => [`--set ${axis.key}=${value}`, `${line(axis)} (the value ${value})`] as const)));
  if (!error.issues.some((issue) => issue.origin !== undefined && flags.has(issue.origin))) return error;
  const renamed = new ConfigError(error.issues.map((issue) => ({ ...issue, origin: issue.origin === undefined ? undefined : (flags.get(issue.origin) ?? issue.origin) })));
  let message = error.message;
  for (const [set, grid] of flags) message = message.split(`${set}: `).join(`${grid}: `);
  renamed.message = message;
  return renamed;
}
