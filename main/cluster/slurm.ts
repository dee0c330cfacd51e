// Slurm through its command-line tools: the batch scripts a sweep submits, and reading
// `sbatch --parsable` and `scontrol show job -o` back. Pure except for `Shell` calls, which the
// caller passes in.
import { shellQuote, type Shell } from './shell';
import { slurmTimeProblem } from '../../preload/sweep-plan';
import { ENDED_JOB_STATES } from '../../preload/contract';

export interface SlurmResources {
  partition?: string;
  /** `--time`, e.g. `01:00:00`. */
  time?: string;
  cpusPerTask?: number;
  /** `--gres`, e.g. `gpu:1`. */
  gres?: string;
  /** Extra `#SBATCH` lines as given (`--account=abc`, `--mem=8G`...). */
  extra?: string[];
}

export const JOB_STATES = ['submitting', 'pending', 'running', 'completed', 'failed', 'cancelled', 'timeout', 'unknown'] as const;
export type JobState = (typeof JOB_STATES)[number];
export const ENDED_STATES: ReadonlySet<JobState> = ENDED_JOB_STATES;

export class SlurmError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SlurmError';
  }
}

function resourceLines(resources: SlurmResources): string[] {
  // Each value becomes one line of the batch script: a line break would start a line of shell.
  for (const [name, value] of Object.entries({ ...resources, extra: undefined })) {
    if (typeof value === 'string' && /[\r\n]/.test(value)) throw new SlurmError(`the ${name} setting '${value.replace(/[\r\n]+/g, ' ')}' holds a line break; give it on one line`);
  }
  for (const line of resources.extra ?? []) {
    if (/[\r\n]/.test(line) || !line.replace(/^#SBATCH\s+/, '').trim().startsWith('-')) {
      throw new SlurmError(`the #SBATCH line '${line.replace(/[\r\n]+/g, ' ')}' is not one sbatch flag; write each as sbatch reads it, e.g. --mem=32G`);
    }
  }
  if (resources.time && slurmTimeProblem(resources.time) !== null) {
    throw new SlurmError(slurmTimeProblem(resources.time)!);
  }
  const lines: string[] = [];
  if (resources.partition) lines.push(`--partition=${resources.partition}`);
  if (resources.time) lines.push(`--time=${resources.time}`);
  lines.push(`--cpus-per-task=${resources.cpusPerTask ?? 1}`);
  if (resources.gres) lines.push(`--gres=${resources.gres}`);
  for (const line of resources.extra ?? []) lines.push(line.replace(/^#SBATCH\s+/, '').trim());
  return lines.map((l) => `#SBATCH ${l}`);
}

/** Throws SlurmError for a setting the batch script could not carry (a bad --time, a line break). */
export function checkSlurmResources(resources: SlurmResources): void {
  resourceLines(resources);
}

export interface ArrayTask {
  bundleDir: string;
  /** `turnlab` arguments after `--data-dir BUNDLE`. */
  args: string[];
}

/**
 * One script for the whole sweep, submitted once as `sbatch --array=0-(n-1)`: task i trains run i
 * into its own bundle folder. The trainer is exec'd, so `scancel`'s SIGTERM reaches it and it
 * stops after its iteration with a checkpoint.
 */
export function arrayScript(options: { jobName: string; outputDir: string; turnlab: string; tasks: ArrayTask[]; resources: SlurmResources }): string {
  const cases = options.tasks.map(
    (task, i) => `  ${i}) bundle=${shellQuote(task.bundleDir)}; set -- ${task.args.map(shellQuote).join(' ')} ;;`,
  );
  return [
    '#!/bin/bash',
    `#SBATCH --job-name=${options.jobName}`,
    `#SBATCH --array=0-${options.tasks.length - 1}`,
    `#SBATCH --output=${options.outputDir}/slurm-%A_%a.out`,
    // A requeued task (scontrol requeue, preemption, a node failure) runs this script again: its
    // train continues the run its earlier attempt left (--resume-existing), below that attempt's output.
    '#SBATCH --open-mode=append',
    ...resourceLines(options.resources),
    '# Written by `turnlab sweep`: each task trains one run into its own bundle folder.',
    'set -eu',
    'case "$SLURM_ARRAY_TASK_ID" in',
    ...cases,
    '  *) echo "turnlab: no run for array task $SLURM_ARRAY_TASK_ID" >&2; exit 2 ;;',
    'esac',
    `exec ${options.turnlab} --data-dir "$bundle" "$@"`,
    '',
  ].join('\n');
}

/** One job continuing one bundle's run (a resumed task). */
export function singleScript(options: { jobName: string; bundleDir: string; turnlab: string; args: string[]; resources: SlurmResources }): string {
  return [
    '#!/bin/bash',
    `#SBATCH --job-name=${options.jobName}`,
    `#SBATCH --output=${options.bundleDir}/slurm-%j.out`,
    '#SBATCH --open-mode=append',
    ...resourceLines(options.resources),
    'set -eu',
    `exec ${options.turnlab} --data-dir ${shellQuote(options.bundleDir)} ${options.args.map(shellQuote).join(' ')}`,
    '',
  ].join('\n');
}

/** Submits a script file (a path the login node sees); returns the job id. */
export async function sbatch(shell: Shell, scriptPath: string): Promise<string> {
  const result = await shell.run(['sbatch', '--parsable', scriptPath]);
  const id = result.stdout.trim().split(';')[0];
  if (result.code !== 0 || !/^\d+$/.test(id)) {
    // sbatch ends a refused flag with `Try "sbatch --help" ...`: the line before says what is wrong.
    const lines = result.stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !/^Try "sbatch --help"/.test(l));
    const why = lines.join('; ') || `exit code ${result.code}`;
    throw new SlurmError(`sbatch ${scriptPath} failed${shell.host ? ` on ${shell.host}` : ''}: ${why}`);
  }
  return id;
}

export async function scancel(shell: Shell, jobId: string): Promise<void> {
  const result = await shell.run(['scancel', jobId]);
  if (result.code !== 0) throw new SlurmError(`scancel ${jobId} failed: ${result.stderr.trim() || `exit code ${result.code}`}`);
}

export interface JobInfo {
  /** `<array>_<task>` for an array task, else the job id. */
  id: string;
  state: JobState;
  /** Slurm's reason (pending) or exit code (failed); null when there is nothing to say. */
  reason: string | null;
}

/** Slurm's JobState in our words. */
export function jobStateOf(slurmState: string): JobState {
  const s = slurmState.replace(/[+ ].*$/, '');
  if (s === 'PENDING' || s === 'REQUEUED' || s === 'REQUEUE_HOLD' || s === 'SUSPENDED') return 'pending';
  if (s === 'RUNNING' || s === 'CONFIGURING' || s === 'COMPLETING' || s === 'RESIZING' || s === 'SIGNALING' || s === 'STAGE_OUT') return 'running';
  if (s === 'COMPLETED') return 'completed';
  if (s === 'CANCELLED' || s === 'PREEMPTED') return 'cancelled';
  if (s === 'TIMEOUT' || s === 'DEADLINE') return 'timeout';
  if (s === 'FAILED' || s === 'NODE_FAIL' || s === 'OUT_OF_MEMORY' || s === 'BOOT_FAIL') return 'failed';
  return 'unknown';
}

function expandTaskIds(text: string): number[] {
  // Pending tasks are listed together: `2-5`, `1,3,7-9`, `0-9%2`.
  return text
    .replace(/%\d+$/, '')
    .split(',')
    .flatMap((part) => {
      const [a, b] = part.split('-').map(Number);
      return b === undefined ? [a] : Array.from({ length: b - a + 1 }, (_, i) => a + i);
    });
}

/** Parses `scontrol show job -o` (one line per job record, `Key=Value` pairs). */
export function parseScontrol(text: string): JobInfo[] {
  const jobs: JobInfo[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('JobId=')) continue;
    const field = (key: string) => new RegExp(`(?:^| )${key}=(\\S*)`).exec(line)?.[1] ?? null;
    const state = jobStateOf(field('JobState') ?? '');
    const slurmReason = field('Reason');
    const exit = field('ExitCode');
    const reason =
      state === 'pending' || state === 'failed'
        ? [slurmReason && slurmReason !== 'None' ? slurmReason : null, state === 'failed' && exit ? `exit code ${exit}` : null].filter(Boolean).join(', ') || null
        : null;
    const arrayJob = field('ArrayJobId');
    const tasks = field('ArrayTaskId');
    if (arrayJob && tasks) for (const task of expandTaskIds(tasks)) jobs.push({ id: `${arrayJob}_${task}`, state, reason });
    else jobs.push({ id: field('JobId')!, state, reason });
  }
  return jobs;
}

/**
 * The scheduler's view of jobs (array job ids or plain ids). A job that `scontrol` has forgotten
 * (after MinJobAge; no accounting without slurmdbd) is simply absent: the caller keeps what it
 * saw last.
 */
export async function queryJobs(shell: Shell, jobIds: readonly string[]): Promise<Map<string, JobInfo>> {
  const found = new Map<string, JobInfo>();
  for (const id of new Set(jobIds)) {
    const result = await shell.run(['scontrol', 'show', 'job', '-o', id]);
    if (result.code !== 0) {
      if (/Invalid job id/i.test(result.stderr)) continue;
      throw new SlurmError(`scontrol show job ${id} failed${shell.host ? ` on ${shell.host}` : ''}: ${result.stderr.trim() || `exit code ${result.code}`}`);
    }
    for (const job of parseScontrol(result.stdout)) found.set(job.id, job);
  }
  return found;
}
