// `turnlab sweep`: a grid of settings x seeds, trained here as seed groups one after the other, or
// on Slurm as one sbatch --array whose tasks' runs come home; the table by setting at its end.
import { Option, type Command } from 'commander';
import type { ClusterJob } from '../cluster/jobs';
import { skippedLine, type GridAxis, type SkippedSetting } from '../../preload/sweep-plan';
import type { Store } from '../store/db';
import { UserError, wasInterrupted } from './errors';
import { collectSet } from './play';
import { seedsOption } from './train';
import { counted } from './format';
import { asTrainingUserError } from './training-errors';
import { withStore } from './with-store';
import { configFileOption, configFromArguments } from './config-file';
import { multirunArguments } from './hydra-overrides';
import { clusterSettings, positiveInt, SLURM_FLAGS, withResourceOptions, type SlurmFlags } from './slurm-options';
import { jobsTable, throwIfNotCompleted, watchJobs } from './cluster-jobs';

interface SweepOptions extends SlurmFlags {
  config: string;
  set?: string[];
  grid?: string[];
  seeds: number[];
  name?: string;
  executor: 'local' | 'slurm';
  concurrency?: number;
}

/** A `note:` line for each combination the grid holds that no run's config accepts. */
function writeSkipped(axes: readonly GridAxis[], skipped: readonly SkippedSetting[]): void {
  for (const one of skipped) process.stderr.write(`note: left out ${skippedLine(axes, one)}\n`);
}

async function localSweep(store: Store, options: SweepOptions, axes: GridAxis[]): Promise<void> {
  const [{ planSweep, sweepTag }, { loadRunConfigWithSource }, { acceptedSettings, loadSweepRunConfigs }, { trainSeedGroup }, { axisValues, settingResults, sweepSummaryText }, { newSweepName, recordSweepPlan }] = await Promise.all([
    import('../../preload/sweep-plan'),
    import('../../trainer-core'),
    import('../cluster/sweep-configs'),
    import('./train-seeds'),
    import('./sweep-summary'),
    import('../cluster/sweep-name'),
  ]);
  const overrides = options.set ?? [];
  const base = options.name ?? loadRunConfigWithSource(options.config, overrides).cfg.trainer.experiment_name;
  const { settings, skipped } = await acceptedSettings(options.config, overrides, axes);
  const plan = planSweep(base, settings, options.seeds, []);
  loadSweepRunConfigs(options.config, overrides, plan.runs, axes);
  const sweep = newSweepName(store, base);
  recordSweepPlan(store, sweep, axes, options.seeds, 'local', skipped);
  writeSkipped(axes, skipped);
  process.stderr.write(`sweep ${sweep}: ${counted(plan.runs.length, 'run')} in ${counted(settings.length, 'seed group')}, one group after the other; its runs are tagged ${sweepTag(sweep)} (turnlab runs --where tag=${sweepTag(sweep)})\n`);
  const trained: Array<{ group: string; values: string[]; runIds: number[] }> = [];
  for (const [index, setting] of settings.entries()) {
    const { group, outcomes, stopped } = await trainSeedGroup(store, {
      configPath: options.config,
      overrides: [...overrides, ...setting.overrides],
      name: setting.label ? `${base}-${setting.label}` : base,
      seeds: options.seeds,
      concurrency: options.concurrency,
      tags: [sweepTag(sweep)],
    });
    trained.push({ group, values: axisValues(axes, setting.overrides), runIds: outcomes.flatMap((o) => (o.runId === null ? [] : [o.runId])) });
    const left = settings.length - index - 1;
    // A stop (Ctrl-C here, turnlab stop or the workbench elsewhere) stops the sweep, not only the group it reached.
    if (stopped && left > 0) {
      process.stderr.write(`sweep ${sweep} stopped: ${left} of ${settings.length} settings not started\n`);
      break;
    }
  }
  if (settings.length > 1) process.stdout.write(sweepSummaryText(`sweep ${sweep}: final validation success by setting, best first`, axes, settingResults(store, trained)));
}

/** The jobs of a sweep by seed group, each with its setting (read back from the task's `--set` arguments) and its imported runs. */
function groupsOfJobs(axes: readonly GridAxis[], jobs: readonly ClusterJob[], axisValues: (axes: readonly GridAxis[], overrides: readonly string[]) => string[]): Array<{ group: string; values: string[]; runIds: number[] }> {
  const groups = new Map<string, { group: string; values: string[]; runIds: number[] }>();
  for (const job of jobs) {
    const sets = job.trainArgs.flatMap((arg, i) => (job.trainArgs[i - 1] === '--set' ? [arg] : []));
    const entry = groups.get(job.seedGroup) ?? { group: job.seedGroup, values: axisValues(axes, sets), runIds: [] };
    if (job.runId !== null) entry.runIds.push(job.runId);
    groups.set(job.seedGroup, entry);
  }
  return [...groups.values()];
}

async function slurmSweep(store: Store, options: SweepOptions, axes: GridAxis[]): Promise<void> {
  const [{ submitSlurmSweep }, { axisValues, settingResults, sweepSummaryText }] = await Promise.all([import('../cluster/slurm-sweep'), import('./sweep-summary')]);
  const settings = clusterSettings(options);
  const { sweep, arrayJobId, jobs, skipped } = await submitSlurmSweep(store, {
    configPath: options.config,
    overrides: options.set ?? [],
    name: options.name,
    axes,
    seeds: options.seeds,
    ...settings,
  });
  const groups = [...new Set(jobs.map((j) => j.seedGroup))];
  writeSkipped(axes, skipped);
  process.stderr.write(`sweep ${sweep}: ${counted(jobs.length, 'run')} in ${counted(groups.length, 'seed group')} (${groups.join(', ')}), sbatch array job ${arrayJobId}${settings.loginHost ? ` on ${settings.loginHost}` : ''}\n`);
  if (options.detach) {
    process.stdout.write(`${jobsTable(jobs)}\n`);
    return;
  }
  const ended = await watchJobs(store, (j) => j.sweep === sweep);
  process.stdout.write(`sweep ${sweep}\n${jobsTable(ended)}\n`);
  process.stdout.write(sweepSummaryText(`sweep ${sweep}: final validation success by setting, best first`, axes, settingResults(store, groupsOfJobs(axes, ended, axisValues))));
  if (!wasInterrupted()) throwIfNotCompleted(ended);
}

export function register(program: Command): void {
  const sweepCommand = program
    .command('sweep')
    .description('a grid of settings x seeds: one seed group per setting, trained here (--executor local) or on a Slurm cluster (--executor slurm)')
    .argument('[overrides...]', "as Hydra's multirun writes them: key=v1,v2 is an axis of the grid (as --grid), key=value an override of every run (as --set); without --config the first argument is the config")
    .option('--config <file>', 'run config (YAML), a shipped one by name (sokoban; see configs/), or run:<run> for the config a past run trained with', configFileOption)
    .option('--set <key=value>', 'override a config key for every run (repeatable)', collectSet)
    .option('--grid <key=v1,v2>', 'a config key and its values to sweep (repeatable: the grid is every combination)', collectSet)
    .requiredOption('--seeds <n|list>', 'seeds of each setting: 3 means 0..2, 0,1,2 those seeds, 7, seed 7 alone', seedsOption)
    .option('--name <name>', 'base of the group and run names (default: trainer.experiment_name)')
    .addOption(new Option('--executor <where>', 'local: the queue of this machine; slurm: one sbatch --array').choices(['local', 'slurm']).default('local'))
    .option('--concurrency <n>', 'local: runs trained at once', positiveInt)
    .option('--cluster <file>', 'slurm: YAML with ssh, remote_dir, local_dir, partition, time, cpus_per_task, gres, sbatch (list), turnlab')
    .option('--remote-dir <dir>', 'slurm: folder on the shared filesystem for the run bundles, as the nodes see it')
    .option('--local-dir <dir>', 'slurm: the same folder as this machine sees it (default: --remote-dir)')
    .option('--ssh <host>', 'slurm: submit on this login node over ssh (default: this machine)');
  withResourceOptions(sweepCommand, (what) => `slurm: ${what}`)
    .option('--turnlab <command>', 'slurm: how a node starts turnlab (default: this node and this checkout)')
    .option('--detach', 'slurm: return once submitted; follow with turnlab jobs --watch')
    .action(async (args: string[], flags: Omit<SweepOptions, 'config'> & { config?: string }, command: Command) => {
      const { parseGridAxis } = await import('../../preload/sweep-plan');
      const { config, args: positional } = configFromArguments('sweep', flags.config, args);
      // Arguments after the command join the flags they stand for: key=value --set, key=v1,v2 --grid.
      const multirun = multirunArguments(positional);
      const options: SweepOptions = { ...flags, config, set: [...(flags.set ?? []), ...multirun.overrides], grid: [...(flags.grid ?? []), ...multirun.grid] };
      let axes: GridAxis[];
      try {
        axes = (options.grid ?? []).map((text) => parseGridAxis(text));
      } catch (error) {
        throw new UserError((error as Error).message);
      }
      if (options.executor === 'local') {
        // Silently dropped, a --partition or --time would read as applied to a sweep that ignored them.
        const slurmOnly = SLURM_FLAGS.filter(([key]) => options[key] !== undefined && !(Array.isArray(options[key]) && options[key].length === 0));
        if (slurmOnly.length > 0) throw new UserError(`${slurmOnly.map(([, flag]) => flag).join(', ')} ${slurmOnly.length === 1 ? 'applies' : 'apply'} to --executor slurm; this sweep trains here (--executor local)`);
      }
      if (options.executor === 'slurm' && options.concurrency !== undefined) throw new UserError('--concurrency applies to --executor local; the scheduler decides for slurm');
      await withStore(
        command,
        async (store) => {
          const { isRunConfigRef, writeRunConfig } = await import('../services/run-config-file');
          if (isRunConfigRef(options.config)) options.config = writeRunConfig(store, options.config);
          try {
            if (options.executor === 'slurm') await slurmSweep(store, options, axes);
            else await localSweep(store, options, axes);
          } catch (error) {
            const userError = asTrainingUserError(error);
            if (userError instanceof Error && !(userError instanceof UserError) && /^(--grid|the sweep has)/.test(userError.message)) throw new UserError(userError.message);
            throw userError;
          }
        },
        { create: true },
      );
    });
}
