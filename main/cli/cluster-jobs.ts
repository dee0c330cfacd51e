// `turnlab jobs`, `cancel-job` and `resume-job`: the Slurm tasks of sweeps, polled, stopped and
// continued; and the watch that a following `sweep` shares.
import type { Command } from 'commander';
import type { ClusterJob } from '../cluster/jobs';
import type { Store } from '../store/db';
import { noteInterrupted, UserError, wasInterrupted } from './errors';
import { renderTable } from './format';
import { withResourceOptions } from './slurm-options';
import { asTrainingUserError } from './training-errors';
import { withStore } from './with-store';

interface ResumeJobOptions {
  watch?: boolean;
  time?: string;
  partition?: string;
  cpusPerTask?: number;
  gres?: string;
  /** Lines given with --sbatch; false with --no-sbatch. */
  sbatch?: string[] | boolean;
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
export async function watchJobs(store: Store, only: (job: ClusterJob) => boolean): Promise<ClusterJob[]> {
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

export function throwIfNotCompleted(jobs: ClusterJob[]): void {
  const bad = jobs.filter((j) => j.state !== 'completed');
  if (bad.length > 0) throw new UserError(`${bad.length} of ${jobs.length} tasks did not complete: ${bad.map((j) => `${j.name} ${j.state}`).join(', ')}`);
}

export function register(program: Command): void {
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
