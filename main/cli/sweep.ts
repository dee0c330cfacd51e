import { readFileSync } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import type { ClusterJob } from '../cluster/jobs';
import type { SlurmResources } from '../cluster/slurm';
import { skippedLine, type GridAxis, type SkippedSetting } from '../../preload/sweep-plan';
import type { Store } from '../store/db';
import { noteInterrupted, UserError, wasInterrupted } from './errors';
import { renderTable } from './format';
import { collectSet } from './play';
import { seedsOption } from './train';
import { asTrainingUserError } from './training-errors';
import { withStore } from './with-store';
import { configFileOption, configFromArguments } from './config-file';
import { multirunArguments } from './hydra-overrides';

interface SweepOptions {
  config: string;
  set?: string[];
  grid?: string[];
  seeds: number[];
  name?: string;
  executor: 'local' | 'slurm';
  concurrency?: number;
  cluster?: string;
  remoteDir?: string;
  localDir?: string;
  ssh?: string;
  partition?: string;
  time?: string;
  cpusPerTask?: number;
  gres?: string;
  sbatch?: string[];
  turnlab?: string;
  detach?: boolean;
}

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new InvalidArgumentError(`'${value}' is not a whole number of 1 or more`);
  return Number(value);
}

/** "1 run", "6 runs". */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The #SBATCH settings as flags: a sweep's, or resume-job's in place of those its task was sent with. */
function withResourceOptions(command: Command, say: (what: string) => string): Command {
  return command
    .option('--partition <name>', say('#SBATCH --partition'))
    .option('--time <limit>', say('#SBATCH --time, e.g. 02:00:00'))
    .option('--cpus-per-task <n>', say('#SBATCH --cpus-per-task (default 1)'), positiveInt)
    .option('--gres <gres>', say('#SBATCH --gres, e.g. gpu:1'))
    .option('--sbatch <line>', say('an extra #SBATCH line, e.g. --sbatch=--account=abc (repeatable)'), collectSet);
}

interface ResumeJobOptions {
  watch?: boolean;
  time?: string;
  partition?: string;
  cpusPerTask?: number;
  gres?: string;
  /** Lines given with --sbatch; false with --no-sbatch. */
  sbatch?: string[] | boolean;
}

/** The options that only a Slurm sweep reads, with their flags. */
const SLURM_FLAGS: ReadonlyArray<[keyof SweepOptions, string]> = [
  ['cluster', '--cluster'], ['remoteDir', '--remote-dir'], ['localDir', '--local-dir'], ['ssh', '--ssh'], ['partition', '--partition'], ['time', '--time'],
  ['cpusPerTask', '--cpus-per-task'], ['gres', '--gres'], ['sbatch', '--sbatch'], ['turnlab', '--turnlab'], ['detach', '--detach'],
];

/** Keys of a `--cluster` file: the flags' names in snake case. */
const CLUSTER_KEYS = ['ssh', 'remote_dir', 'local_dir', 'partition', 'time', 'cpus_per_task', 'gres', 'sbatch', 'turnlab'] as const;

/** Flags win over the `--cluster` file, which wins over the defaults. */
function clusterSettings(options: SweepOptions): { remoteDir: string; localDir?: string; loginHost: string | null; turnlab?: string; resources: SlurmResources } {
  let file: Record<string, unknown> = {};
  if (options.cluster) {
    try {
      file = (parseYaml(readFileSync(options.cluster, 'utf8')) ?? {}) as Record<string, unknown>;
    } catch (error) {
      throw new UserError(`cannot read --cluster ${options.cluster}: ${(error as Error).message}`);
    }
    if (typeof file !== 'object' || Array.isArray(file)) throw new UserError(`${options.cluster} is not a mapping of settings; write one key a line, e.g. remote_dir: /shared/me/sweeps`);
    for (const key of Object.keys(file)) {
      if (!(CLUSTER_KEYS as readonly string[]).includes(key)) {
        const near = CLUSTER_KEYS.find((k) => k === key.replace(/-/g, '_'));
        throw new UserError(`${options.cluster}: unknown key '${key}'; ${near ? `did you mean '${near}'? ` : ''}the keys are ${CLUSTER_KEYS.join(', ')}`);
      }
    }
    // Each value as the flag reads it: a string for sbatch split into one "line" a character, a
    // cpus_per_task of `eight` reached sbatch as NaN.
    for (const [key, value] of Object.entries(file)) {
      if (value === null || key === 'sbatch' || key === 'cpus_per_task') continue;
      if (typeof value === 'object') throw new UserError(`${options.cluster}: ${key} must be one value, not ${Array.isArray(value) ? 'a list' : 'a mapping'}`);
    }
    const cpus = file.cpus_per_task;
    if (cpus !== undefined && cpus !== null && !(Number.isInteger(cpus) && (cpus as number) >= 1)) {
      throw new UserError(`${options.cluster}: cpus_per_task must be a whole number of 1 or more, not ${JSON.stringify(cpus)}`);
    }
    const lines = file.sbatch;
    if (typeof lines === 'string') file.sbatch = [lines];
    else if (lines !== undefined && lines !== null && !(Array.isArray(lines) && lines.every((l) => typeof l === 'string'))) {
      throw new UserError(`${options.cluster}: sbatch must be a list of #SBATCH flags, e.g. sbatch: ["--mem=32G", "--account=rl-lab"]`);
    }
  }
  const text = (key: string): string | undefined => (file[key] === undefined || file[key] === null ? undefined : String(file[key]));
  const remoteDir = options.remoteDir ?? text('remote_dir');
  if (!remoteDir) throw new UserError('--executor slurm needs --remote-dir (a folder on a filesystem that the cluster nodes and this machine share), or remote_dir in --cluster');
  const sbatchLines = [...((file.sbatch as string[] | undefined) ?? []), ...(options.sbatch ?? [])];
  return {
    remoteDir,
    localDir: options.localDir ?? text('local_dir'),
    loginHost: options.ssh ?? text('ssh') ?? null,
    turnlab: options.turnlab ?? text('turnlab'),
    resources: {
      partition: options.partition ?? text('partition'),
      time: options.time ?? text('time'),
      cpusPerTask: options.cpusPerTask ?? (file.cpus_per_task === undefined ? undefined : Number(file.cpus_per_task)),
      gres: options.gres ?? text('gres'),
      extra: sbatchLines,
    },
  };
}

export function jobsTable(jobs: ClusterJob[]): string {
  return renderTable(
    ['job', 'run', 'group', 'slurm job', 'state', 'reason', 'iteration', 'local run'],
    jobs.map((j) => [j.id, j.name, j.seedGroup, j.jobId ?? '-', j.state, j.reason ?? '-', j.lastIteration ?? '-', j.runId ?? '-']),
  );
}

function pollMs(): number {
  return Number(process.env.TURNLAB_JOB_POLL_MS) || 2000;
}

/** Follows jobs until every one has ended and been imported; Ctrl-C stops following, not the jobs. */
async function watchJobs(store: Store, only: (job: ClusterJob) => boolean): Promise<ClusterJob[]> {
  const { refreshJobs } = await import('../cluster/slurm-sweep');
  const { ClusterJobs } = await import('../cluster/jobs');
  const { ENDED_STATES, SlurmError } = await import('../cluster/slurm');
  let interrupted = false;
  // A poll the scheduler did not answer (slurmctld restarting, the login node's ssh gone for a
  // moment) ended the watch, and a sweep's command with it, while the jobs went on: said once, retried.
  let unreachable: string | null = null;
  const onSigint = () => {
    interrupted = true;
    noteInterrupted();
    process.stderr.write('stopped following; the jobs go on (turnlab jobs --watch follows them again)\n');
  };
  process.on('SIGINT', onSigint);
  // A state or reason said once: a job resumed held (JobHeldUser) changed its reason, not its state, and was waited on in silence.
  const sayable = (j: ClusterJob) => `${j.state} ${j.reason ?? ''}`;
  const said = new Map(new ClusterJobs(store).list().filter(only).map((j) => [j.id, sayable(j)]));
  try {
    for (;;) {
      let changes: Awaited<ReturnType<typeof refreshJobs>> = [];
      try {
        changes = await refreshJobs(store, { only });
        if (unreachable !== null) process.stderr.write('the scheduler answers again\n');
        unreachable = null;
      } catch (error) {
        if (!(error instanceof SlurmError)) throw error;
        if (error.message !== unreachable) {
          process.stderr.write(`cannot poll the scheduler: ${error.message}; trying again every ${pollMs() / 1000} s (the jobs go on; Ctrl-C stops following)\n`);
        }
        unreachable = error.message;
      }
      for (const change of changes) {
        const j = change.job;
        const what = change.imported ? `imported as run ${j.runId}` : `${j.state}${j.reason ? ` (${j.reason})` : ''}`;
        if (change.imported || said.get(j.id) !== sayable(j)) process.stderr.write(`[${j.name}] job ${j.jobId} ${what}${j.lastIteration !== null ? `, iteration ${j.lastIteration}` : ''}\n`);
        said.set(j.id, sayable(j));
      }
      const jobs = new ClusterJobs(store).list().filter(only);
      if (interrupted || jobs.every((j) => ENDED_STATES.has(j.state) && j.importedAttempt === j.attempt)) return jobs;
      await new Promise((r) => setTimeout(r, pollMs()));
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
}

function throwIfNotCompleted(jobs: ClusterJob[]): void {
  const bad = jobs.filter((j) => j.state !== 'completed');
  if (bad.length > 0) throw new UserError(`${bad.length} of ${jobs.length} tasks did not complete: ${bad.map((j) => `${j.name} ${j.state}`).join(', ')}`);
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

  program
    .command('jobs')
    .description('the cluster jobs of sweeps: polls the scheduler, imports the runs of ended tasks, prints their states')
    .option('--watch', 'follow until every job has ended and been imported')
    .option('--json', 'print JSON')
    .action(async (options: { watch?: boolean; json?: boolean }, command: Command) => {
      await withStore(command, async (store) => {
        const { refreshJobs } = await import('../cluster/slurm-sweep');
        const { ClusterJobs } = await import('../cluster/jobs');
        let unpolled: unknown = null;
        try {
          if (options.watch) await watchJobs(store, () => true);
          else await refreshJobs(store);
        } catch (error) {
          unpolled = error;
        }
        const jobs = new ClusterJobs(store).list();
        // The scheduler not answering (slurmctld down) still shows the states seen last, as the Runs view does, then says why it ends with 2.
        if (options.json) process.stdout.write(`${JSON.stringify(jobs, null, 2)}\n`);
        else process.stdout.write(jobs.length === 0 ? 'no cluster jobs yet\n' : `${jobsTable(jobs)}${unpolled === null ? '' : '\n(states as seen last: the scheduler did not answer)'}\n`);
        if (unpolled !== null) throw asTrainingUserError(unpolled);
      });
    });

  program
    .command('cancel-job')
    .description('stop a cluster task (scancel): its trainer saves a checkpoint and ends; resume-job continues it')
    .argument('<job>', 'job number from turnlab jobs, Slurm job id (12_3) or run name')
    .action(async (ref: string, _options: unknown, command: Command) => {
      await withStore(command, async (store) => {
        const { cancelJob } = await import('../cluster/slurm-sweep');
        const job = await cancelJob(store, ref).catch((error: unknown) => {
          throw asTrainingUserError(error);
        });
        process.stdout.write(`${job.name}: job ${job.jobId} ${job.state}\n`);
      });
    });

  const resumeCommand = program
    .command('resume-job')
    .description('continue a cancelled, timed-out or failed cluster task as a new job from its last checkpoint')
    .argument('<job>', 'job number from turnlab jobs, Slurm job id (12_3) or run name')
    .option('--watch', 'follow the new job until it has ended and been imported');
  withResourceOptions(resumeCommand, (what) => `${what}, in place of what the task was sent with (this job and later ones)`)
    .option('--no-sbatch', 'send it without the extra #SBATCH lines it was sent with (a sweep sent with --sbatch=--hold)')
    .action(async (ref: string, options: ResumeJobOptions, command: Command) => {
      await withStore(command, async (store) => {
        const { resumeJob } = await import('../cluster/slurm-sweep');
        const extra = options.sbatch === false ? [] : options.sbatch === true ? undefined : options.sbatch;
        const resources = { time: options.time, partition: options.partition, cpusPerTask: options.cpusPerTask, gres: options.gres, extra };
        const job = await resumeJob(store, ref, undefined, resources).catch((error: unknown) => {
          throw asTrainingUserError(error);
        });
        process.stderr.write(`${job.name}: resumed as job ${job.jobId} (attempt ${job.attempt})\n`);
        if (options.watch) {
          const [ended] = await watchJobs(store, (j) => j.id === job.id);
          process.stdout.write(`${jobsTable([ended])}\n`);
          if (!wasInterrupted()) throwIfNotCompleted([ended]);
        }
      });
    });
}
