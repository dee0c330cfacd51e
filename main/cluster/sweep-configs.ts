import { dirname, resolve } from 'node:path';
import { ConfigError, EnvConfigError, loadRunConfigWithSource, startRunEnvironments, withAbsoluteModulePaths, type RunConfig } from '../../trainer-core';
import { expandGrid, type GridAxis, type GridWords, type SkippedSetting, type SweepRunPlan, type SweepSetting } from '../../preload/sweep-plan';

/**
 * The grid's combinations whose configs load and whose environments start, and those left out. A
 * grid of keys that constrain each other (adv_estimator=gae,grpo by bi_level_gae=true,false; a
 * room size by a box count) holds a combination no run accepts (GRPO with bi-level GAE); the
 * researcher means the others, as the learning bench's --estimators does, so it is left out and
 * said. A value no combination accepts is a mistake of its own (a misspelt value, a key that does
 * not exist, an option a custom env refuses) and refuses the whole sweep, naming its --grid, as
 * does a grid of which nothing is accepted. The environments are started as a run starts them
 * (main/services/prepare-run.ts), so a bad env option is refused here, not by the first run of its setting
 * after the settings before it trained.
 */
export async function acceptedSettings(configPath: string, overrides: readonly string[], axes: readonly GridAxis[], words: GridWords = 'flag'): Promise<{ settings: SweepSetting[]; skipped: SkippedSetting[] }> {
  const baseDir = dirname(resolve(configPath));
  const outcomes: Array<{ setting: SweepSetting; error: Error | null; reason: string }> = [];
  for (const setting of expandGrid(axes, words)) {
    try {
      const { cfg } = loadRunConfigWithSource(configPath, [...overrides, ...setting.overrides]);
      await startRunEnvironments(withAbsoluteModulePaths(cfg, baseDir), baseDir);
      outcomes.push({ setting, error: null, reason: '' });
    } catch (error) {
      if (error instanceof ConfigError) outcomes.push({ setting, error: namingTheGrid(error, axes, words), reason: error.issues.map((issue) => issue.message).join('; ') });
      else if (error instanceof EnvConfigError) outcomes.push({ setting, error: new EnvConfigError(`${settingWords(setting, words)}: ${error.message}`), reason: error.message });
      else throw error;
    }
  }
  const accepted = outcomes.filter((o) => o.error === null);
  for (const [i, axis] of axes.entries()) {
    for (const value of axis.values) {
      if (accepted.some((o) => o.setting.values[i] === value)) continue;
      const refused = outcomes.find((o) => o.setting.values[i] === value && o.error !== null);
      if (refused?.error) throw refused.error;
    }
  }
  const skipped = outcomes.flatMap((o) => (o.error === null ? [] : [{ setting: o.setting, reason: o.reason }]));
  return { settings: accepted.map((o) => o.setting), skipped };
}

/** A setting of the grid as a refusal names it: its overrides, and where they came from. */
function settingWords(setting: SweepSetting, words: GridWords): string {
  return `with ${setting.overrides.join(' ')} (${words === 'flag' ? 'from --grid' : "from the form's grid"})`;
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
