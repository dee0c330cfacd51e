import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { FolderError, loadRunConfigWithSource, makeFolder } from '../../trainer-core';
import { acceptedSettings, loadSweepRunConfigs } from './sweep-configs';
import { bundleRuns, openBundle } from '../bundle/bundle-file';
import { importBundles } from '../bundle/import-bundles';
import { BundleError, newManifest, writeManifest } from '../bundle/manifest';
import { dbPath } from '../paths';
import type { Store } from '../store/db';
import { seedGroupOf } from '../../preload/seed-list';
import { ClusterJobs, type ClusterJob } from './jobs';
import { createShell, shellQuote, type Shell } from './shell';
import { arrayScript, checkSlurmResources, ENDED_STATES, queryJobs, sbatch, scancel, singleScript, SlurmError, type JobState, type SlurmResources } from './slurm';
import { folderName, planSweep, sweepTag, type GridAxis, type GridWords, type SkippedSetting } from '../../preload/sweep-plan';
import { newSweepName, recordSweepPlan } from './sweep-name';

/**
 * The Slurm executor of `turnlab sweep`: one `sbatch --array` per sweep, each task training one
 * run into its own bundle folder on the shared filesystem; states polled with `scontrol` and
 * kept in cluster_jobs; ended tasks imported into the local store; `scancel` to stop; a cancelled
 * or timed-out task resumed as a new job from its bundle's last checkpoint.
 */

export interface SlurmSweepRequest {
  configPath: string;
  overrides: string[];
  name?: string;
  axes: GridAxis[];
  /** How a refusal names a grid line: the CLI's --grid (default) or the New run form's field. */
  gridWords?: GridWords;
  seeds: number[];
  /** The sweep's folder on the shared filesystem, as the nodes see it. */
  remoteDir: string;
  /** The same folder as this machine sees it (default: remoteDir). */
  localDir?: string;
  /** `ssh` destination of the login node; null submits on this machine. */
  loginHost: string | null;
  /** How a node starts turnlab (default: this node binary and this checkout's bin/turnlab.js). */
  turnlab?: string;
  resources: SlurmResources;
}

/**
 * How a node starts turnlab unless told: this Node binary and this checkout's bin/turnlab.js,
 * which suits a checkout on the shared filesystem. The desktop app's binary is Electron, which a
 * node would not have: there, the `turnlab` command on the nodes' PATH.
 */
export function defaultTurnlabCommand(): string {
  if (process.versions.electron) return 'turnlab';
  return `${shellQuote(process.execPath)} ${shellQuote(resolve(import.meta.dirname, '../../bin/turnlab.js'))}`;
}

export async function submitSlurmSweep(store: Store, request: SlurmSweepRequest, shell: Shell = createShell(request.loginHost)): Promise<{ sweep: string; arrayJobId: string; jobs: ClusterJob[]; skipped: SkippedSetting[] }> {
  const configPath = resolve(request.configPath);
  // Relative, the nodes (over ssh, from the login node's home) and this machine would read two folders.
  for (const [dir, flag] of [[request.remoteDir, '--remote-dir (remote_dir)'], [request.localDir, '--local-dir (local_dir)']] as const) {
    if (dir !== undefined && !isAbsolute(dir)) throw new SlurmError(`${flag} '${dir}' must be an absolute path, e.g. /shared/sweeps: the shared folder as the cluster nodes see it`);
    if (dir !== undefined && /[\r\n]/.test(dir)) throw new SlurmError(`${flag} holds a line break; give the folder on one line`);
  }
  // A file there made the sweep's folder fail, and then its cleanup, with an internal error (ENOTDIR).
  const hereDir = request.localDir ?? request.remoteDir;
  if (existsSync(hereDir) && !statSync(hereDir).isDirectory()) {
    throw new SlurmError(`${request.localDir === undefined ? '--remote-dir (remote_dir)' : '--local-dir (local_dir)'} ${hereDir} is a file, not a folder; give the shared folder the sweeps go in`);
  }
  const base = request.name ?? loadRunConfigWithSource(configPath, request.overrides).cfg.trainer.experiment_name;
  const jobsTable = new ClusterJobs(store);
  const taken = [
    ...store.runs.progress().flatMap((r) => seedGroupOf(JSON.parse(r.tags) as string[]) ?? []),
    ...jobsTable.list().map((j) => j.seedGroup),
  ];
  const { settings, skipped } = await acceptedSettings(configPath, request.overrides, request.axes, request.gridWords);
  const plan = planSweep(base, settings, request.seeds, taken);
  // Every run's config is read here, so a bad key or value refuses the sweep before anything is submitted.
  const configs = loadSweepRunConfigs(configPath, request.overrides, plan.runs, request.axes);
  const sweep = newSweepName(store, base);
  const localRoot = join(resolve(request.localDir ?? request.remoteDir), sweep);
  const remoteRoot = join(request.remoteDir, sweep);
  if (existsSync(localRoot)) throw new SlurmError(`${localRoot} exists already; wait a second or choose another --remote-dir`);
  const turnlab = request.turnlab ?? defaultTurnlabCommand();
  const tasks = plan.runs.map((run) => ({
    run,
    local: join(localRoot, folderName(run.name)),
    remote: join(remoteRoot, folderName(run.name)),
    args: ['train', '--config', configPath, ...[...request.overrides, ...run.overrides].flatMap((o) => ['--set', o]), '--name', run.name, '--tag', run.tag, '--tag', sweepTag(sweep), '--resume-existing'],
  }));
  let rows: ClusterJob[] = [];
  try {
    tasks.forEach((task, i) => {
      // Not Node's recursive mkdir, which spins forever under /proc.
      makeFolder(task.local);
      writeManifest(task.local, newManifest({ name: task.run.name, seed: task.run.seed, seedGroup: task.run.seedGroup, sweep, config: configs[i] }));
    });
    const script = arrayScript({
      jobName: `turnlab-${sweep}`,
      outputDir: remoteRoot,
      turnlab,
      tasks: tasks.map((t) => ({ bundleDir: t.remote, args: t.args })),
      resources: request.resources,
    });
    writeFileSync(join(localRoot, 'sweep.sbatch'), script);
    rows = jobsTable.insert(
      tasks.map((t) => ({
        sweep,
        seedGroup: t.run.seedGroup,
        name: t.run.name,
        seed: t.run.seed,
        loginHost: request.loginHost,
        bundleDir: t.local,
        remoteBundleDir: t.remote,
        trainArgs: t.args,
        turnlab,
        resources: request.resources,
      })),
    );
    const arrayJobId = await sbatch(shell, join(remoteRoot, 'sweep.sbatch')).catch((error: unknown) => {
      // The script was written here, under --local-dir; sbatch reads it under --remote-dir.
      if (error instanceof SlurmError && /Unable to open file/i.test(error.message) && request.localDir !== undefined && resolve(request.localDir) !== resolve(request.remoteDir)) {
        error.message += `; the script was written to ${join(localRoot, 'sweep.sbatch')} (--local-dir ${request.localDir}) and sbatch looked for it under --remote-dir ${request.remoteDir}: give as --local-dir the folder this machine sees --remote-dir as`;
      }
      throw error;
    });
    store.transaction(() => {
      rows.forEach((row, i) => jobsTable.update(row.id, { jobId: `${arrayJobId}_${i}`, state: 'pending' }));
      recordSweepPlan(store, sweep, request.axes, request.seeds, 'slurm', skipped);
    });
    return { sweep, arrayJobId, jobs: rows.map((r) => jobsTable.get(r.id)!), skipped };
  } catch (error) {
    // A sweep that was not submitted leaves nothing behind, here or on the shared filesystem.
    jobsTable.remove(rows.map((r) => r.id));
    try {
      rmSync(localRoot, { recursive: true, force: true });
    } catch {
      // Left for the user: the error that stopped the submission says more than the cleanup's.
    }
    if (error instanceof FolderError) throw new SlurmError(`cannot create the sweep's folder ${localRoot}: ${error.message}; choose another --remote-dir`);
    throw error;
  }
}

/** What the bundle's own file says: the run's status and last iteration (null before it has one). */
function readBundleProgress(dir: string): { status: string | null; lastIteration: number | null } {
  if (!existsSync(dbPath(dir))) return { status: null, lastIteration: null };
  try {
    const bundle = openBundle(dir);
    try {
      const run = bundleRuns(bundle).pop();
      const row = bundle.db.prepare('SELECT max(iteration) AS last FROM metrics').get() as { last: number | null };
      return { status: run?.status ?? null, lastIteration: row.last };
    } finally {
      bundle.db.close();
    }
  } catch {
    return { status: null, lastIteration: null };
  }
}

/**
 * Slurm requeues only a job its controller still holds, MinJobAge after it ended (300 s by
 * default). A task seen ending this recently is still asked about, so one requeued in that time
 * shows `pending` while it waits in the queue, before its new attempt writes anything.
 */
const REQUEUE_WATCH_MS = 10 * 60_000;

function endedRecently(job: ClusterJob, now: number): boolean {
  return ENDED_STATES.has(job.state) && now - job.updatedAt < REQUEUE_WATCH_MS;
}

/**
 * An ended, imported task Slurm started again (`scontrol requeue` of a completed, cancelled,
 * timed-out or failed task) is no longer polled, so it would keep its old state and its new
 * iterations would never be imported. Its new attempt writes its bundle and its output file:
 * one written since the job's row last changed is asked about again.
 */
function startedAgain(job: ClusterJob): boolean {
  return [dbPath(job.bundleDir), outputFile(job)].some((file) => {
    try {
      return statSync(file).mtimeMs > job.updatedAt;
    } catch {
      return false;
    }
  });
}

/** The task's output file (#SBATCH --output), as this machine sees it. */
function outputFile(job: ClusterJob): string {
  const [array, task] = (job.jobId ?? '').split('_');
  return task === undefined ? join(job.bundleDir, `slurm-${array}.out`) : join(resolve(job.bundleDir, '..'), `slurm-${array}_${task}.out`);
}

/** The last `turnlab:` line the task printed: why it failed, in turnlab's words. */
function failureLine(job: ClusterJob): string | null {
  const file = outputFile(job);
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('turnlab: '));
  return lines.pop()?.slice('turnlab: '.length) ?? null;
}

/**
 * When the scheduler has forgotten a job before it was seen ending: what its bundle says. A run
 * that never ended there lost its trainer with the job (killed, node lost).
 */
function endFromBundle(status: string | null): { state: JobState; reason: string | null } {
  if (status === 'completed') return { state: 'completed', reason: null };
  if (status === 'stopped') return { state: 'cancelled', reason: null };
  if (status === 'failed') return { state: 'failed', reason: null };
  return {
    state: 'failed',
    reason: status === null ? 'the scheduler no longer knows the job, and it never started training' : 'the scheduler no longer knows the job, and its run did not end (its trainer was killed)',
  };
}

export interface JobChange {
  job: ClusterJob;
  /** The state before this refresh. */
  was: JobState;
  imported: boolean;
}

/**
 * Polls the scheduler for every job not yet ended and imported, records states, last iterations
 * and failure reasons, and imports each ended task's bundle into the store (again when a resumed
 * task ended). Returns the jobs whose state changed or that were imported.
 */
export async function refreshJobs(store: Store, options: { shell?: (host: string | null) => Shell; only?: (job: ClusterJob) => boolean } = {}): Promise<JobChange[]> {
  const table = new ClusterJobs(store);
  const shellOf = options.shell ?? ((host) => createShell(host));
  const now = Date.now();
  const known = table.list().filter((j) => (options.only?.(j) ?? true) && j.jobId !== null);
  const endedAndImported = (j: ClusterJob) => ENDED_STATES.has(j.state) && j.importedAttempt === j.attempt;
  const touched = new Set(known.filter((j) => endedAndImported(j) && startedAgain(j)).map((j) => j.id));
  const open = known.filter((j) => !endedAndImported(j) || touched.has(j.id) || endedRecently(j, now));
  const changes: JobChange[] = [];
  const byHost = new Map<string | null, ClusterJob[]>();
  for (const job of open) byHost.set(job.loginHost, [...(byHost.get(job.loginHost) ?? []), job]);
  for (const [host, jobs] of byHost) {
    const infos = await queryJobs(
      shellOf(host),
      jobs.map((j) => j.jobId!.split('_')[0]),
    );
    for (const job of jobs) {
      const info = infos.get(job.jobId!);
      const progress = readBundleProgress(job.bundleDir);
      // Ended and imported, yet here: its bundle changed since (startedAgain), so Slurm may have
      // run it again, or the scheduler says it is queued or running again.
      const wasImported = endedAndImported(job);
      const reopened = wasImported && (touched.has(job.id) || (info !== undefined && !ENDED_STATES.has(info.state)));
      // Asked about only as recently ended, and not started again: left as it was seen.
      if (wasImported && !reopened) continue;
      let state: JobState = info?.state ?? job.state;
      let reason = info ? info.reason : job.reason;
      if (!info && !ENDED_STATES.has(job.state)) ({ state, reason } = endFromBundle(progress.status));
      // A requeued attempt that completed its run before anyone polled, its job since forgotten by scontrol.
      if (!info && reopened && progress.status === 'completed') ({ state, reason } = endFromBundle(progress.status));
      // A trainer stopped by SIGTERM (scancel --signal=TERM --batch, #SBATCH --signal) saves a
      // checkpoint and exits 0, so Slurm says COMPLETED of a run that did not finish; it read
      // completed, and resume-job refused it.
      if (state === 'completed' && progress.status === 'stopped') {
        state = 'cancelled';
        reason = `its trainer was stopped (SIGTERM) at iteration ${progress.lastIteration ?? 0} before the end; turnlab resume-job continues it`;
      }
      // Without turnlab's words (node or turnlab not started: a wrong --turnlab, a missing module), where to read what happened.
      if (state === 'failed') reason = failureLine(job) ?? (info && existsSync(outputFile(job)) ? `${reason ?? 'failed'}; its output: ${outputFile(job)}` : reason);
      let imported = false;
      let runId = job.runId;
      let importedAttempt = job.importedAttempt;
      // Requeued after it was seen ending (scontrol requeue): what the new attempt trained is imported again.
      if (reopened) importedAttempt = null;
      if (ENDED_STATES.has(state) && importedAttempt !== job.attempt) {
        if (progress.status === null) {
          importedAttempt = job.attempt; // the task never wrote a run: nothing to bring home
        } else {
          try {
            const outcome = importBundles(store, [job.bundleDir]).at(-1);
            if (outcome && outcome.action !== 'live') {
              runId = outcome.runId;
              importedAttempt = job.attempt;
              // A bundle touched again without new iterations (a requeued completed task) is not news.
              imported = !(reopened && outcome.action === 'unchanged');
            }
          } catch (error) {
            // A damaged bundle is this job's problem, not the other jobs': said in its reason.
            if (!(error instanceof BundleError)) throw error;
            reason = `not imported: ${error.message}`;
            importedAttempt = job.attempt;
          }
        }
      }
      const patch = { state, reason, lastIteration: progress.lastIteration ?? job.lastIteration, runId, importedAttempt };
      if (state !== job.state || imported || patch.lastIteration !== job.lastIteration || reason !== job.reason || importedAttempt !== job.importedAttempt) {
        table.update(job.id, patch);
        changes.push({ job: table.get(job.id)!, was: job.state, imported });
      } else if (touched.has(job.id)) {
        // Seen again: its row's time moves past the bundle's, so it is not asked about until the bundle changes again.
        table.update(job.id, patch);
      }
    }
  }
  return changes;
}

export async function cancelJob(store: Store, ref: string, shell?: Shell): Promise<ClusterJob> {
  const job = findJob(store, ref);
  if (ENDED_STATES.has(job.state)) throw new SlurmError(`job ${job.jobId} (${job.name}) has already ended (${job.state})`);
  await scancel(shell ?? createShell(job.loginHost), job.jobId!);
  // slurmctld records the cancellation a moment after scancel returns.
  const table = new ClusterJobs(store);
  for (let tries = 0; tries < 50; tries++) {
    await refreshJobs(store, { only: (j) => j.id === job.id, shell: shell && (() => shell) });
    if (ENDED_STATES.has(table.get(job.id)!.state)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  // A pending array task scancel took may vanish from scontrol at once, which reads as a job lost
  // before it trained (failed): it was this cancel.
  const after = table.get(job.id)!;
  if (after.state === 'failed' && readBundleProgress(job.bundleDir).status === null) {
    table.update(job.id, { state: 'cancelled', reason: 'cancelled before it started' });
  }
  return table.get(job.id)!;
}

export function findJob(store: Store, ref: string): ClusterJob {
  const job = new ClusterJobs(store).resolve(ref);
  if (!job) throw new SlurmError(`no cluster job '${ref}' (see turnlab jobs)`);
  return job;
}

/**
 * A cancelled, timed-out or failed task continues as a new job: `turnlab resume` in its bundle,
 * from the last checkpoint (or trained again from the start when it never saved one). `resources`
 * given replace those the task was sent with (a longer `--time` for a task that timed out; other
 * `#SBATCH` lines for one sent with `--hold`), for this job and the next.
 */
export async function resumeJob(store: Store, ref: string, shell?: Shell, resources: Partial<SlurmResources> = {}): Promise<ClusterJob> {
  const job = findJob(store, ref);
  if (!ENDED_STATES.has(job.state) || job.state === 'completed') {
    throw new SlurmError(`job ${job.jobId} (${job.name}) is ${job.state}; only a cancelled, timed-out or failed task can be resumed`);
  }
  const given = Object.fromEntries(Object.entries(resources).filter(([, value]) => value !== undefined));
  const chosen: SlurmResources = { ...job.resources, ...given };
  // A bad --time is refused before anything in the bundle changes.
  checkSlurmResources(chosen);
  const file = dbPath(job.bundleDir);
  let hasCheckpoint = false;
  if (existsSync(file)) {
    // The job has ended, so no trainer writes the bundle: its run is released here, as Slurm
    // says its process is gone (another node's heartbeat would otherwise hold it for minutes).
    const db = new Database(file, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      const live = db
        .prepare(`SELECT 1 FROM runs WHERE status IN ('running', 'stopping') AND trainer_heartbeat_at > ?`)
        .get(Date.now() - 10_000);
      if (live) throw new SlurmError(`the task of ${job.name} is still saving its checkpoint; resume it in a few seconds`);
      db.prepare(
        `UPDATE runs SET trainer_pid = NULL, trainer_host = NULL, trainer_started_at = NULL, trainer_heartbeat_at = NULL,
          status = CASE WHEN status IN ('queued', 'running', 'stopping') THEN 'interrupted' ELSE status END`,
      ).run();
      hasCheckpoint = (db.prepare('SELECT count(*) AS n FROM checkpoints').get() as { n: number }).n > 0;
    } finally {
      db.close();
    }
  }
  if (!hasCheckpoint) {
    for (const leftover of ['turnlab.sqlite', 'turnlab.sqlite-journal', 'checkpoints']) rmSync(join(job.bundleDir, leftover), { recursive: true, force: true });
  }
  const attempt = job.attempt + 1;
  const script = singleScript({
    jobName: `turnlab-${job.name}`,
    bundleDir: job.remoteBundleDir,
    turnlab: job.turnlab,
    // Train args with --resume-existing continue the run themselves, also when this job is requeued.
    args: hasCheckpoint && !job.trainArgs.includes('--resume-existing') ? ['resume', job.name] : job.trainArgs,
    resources: chosen,
  });
  writeFileSync(join(job.bundleDir, `resume-${attempt}.sbatch`), script);
  const jobId = await sbatch(shell ?? createShell(job.loginHost), join(job.remoteBundleDir, `resume-${attempt}.sbatch`));
  const table = new ClusterJobs(store);
  table.update(job.id, { jobId, attempt, state: 'pending', reason: null, resources: chosen });
  return table.get(job.id)!;
}
