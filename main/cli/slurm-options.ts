// The Slurm side of `turnlab sweep`'s and `resume-job`'s flags: the #SBATCH settings as options,
// and where a sweep's tasks run, from the flags over a `--cluster` YAML file over the defaults.
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import type { SlurmResources } from '../cluster/slurm';
import { UserError } from './errors';
import { collectSet } from './play';

/** The flags only a Slurm sweep reads. */
export interface SlurmFlags {
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

export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new InvalidArgumentError(`'${value}' is not a whole number of 1 or more`);
  return Number(value);
}

/** The #SBATCH settings as flags: a sweep's, or resume-job's in place of those its task was sent with. */
export function withResourceOptions(command: Command, say: (what: string) => string): Command {
  return command
    .option('--partition <name>', say('#SBATCH --partition'))
    .option('--time <limit>', say('#SBATCH --time, e.g. 02:00:00'))
    .option('--cpus-per-task <n>', say('#SBATCH --cpus-per-task (default 1)'), positiveInt)
    .option('--gres <gres>', say('#SBATCH --gres, e.g. gpu:1'))
    .option('--sbatch <line>', say('an extra #SBATCH line, e.g. --sbatch=--account=abc (repeatable)'), collectSet);
}

/** The options that only a Slurm sweep reads, with their flags. */
export const SLURM_FLAGS: ReadonlyArray<[keyof SlurmFlags, string]> = [
  ['cluster', '--cluster'], ['remoteDir', '--remote-dir'], ['localDir', '--local-dir'], ['ssh', '--ssh'], ['partition', '--partition'], ['time', '--time'],
  ['cpusPerTask', '--cpus-per-task'], ['gres', '--gres'], ['sbatch', '--sbatch'], ['turnlab', '--turnlab'], ['detach', '--detach'],
];

/** Keys of a `--cluster` file: the flags' names in snake case. */
const CLUSTER_KEYS = ['ssh', 'remote_dir', 'local_dir', 'partition', 'time', 'cpus_per_task', 'gres', 'sbatch', 'turnlab'] as const;

/** Flags win over the `--cluster` file, which wins over the defaults. */
export function clusterSettings(options: SlurmFlags): { remoteDir: string; localDir?: string; loginHost: string | null; turnlab?: string; resources: SlurmResources } {
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
