import { hostname, uptime } from 'node:os';
import type { Store } from '../store/db';
import { StoreError } from '../store/errors';
import type { RunProcessInfo } from '../store/repositories/runs';

/**
 * One owner per run. The process that trains a run (the CLI, or the child process the app and
 * `turnlab serve` start) records itself in the run's row and beats a heartbeat; while that
 * owner lives, no other process may resume, truncate or delete the run. Whether an owner lives
 * is decided here and only here: by its pid on this host, by the heartbeat's age for another
 * host that shares the data folder. The app, `serve`, the CLI's `runs` and `show`, resume and
 * delete all ask these functions.
 */

/** How often an owner beats while its event loop runs (it also beats at every iteration). */
export const HEARTBEAT_MS = 5_000;
/**
 * An owner on another host is gone once its heartbeat is this old. Long, because a trainer
 * beats between iterations only while tensor work holds its event loop.
 */
export const STALE_HEARTBEAT_MS = 15 * 60_000;
/** A queued run without an owner is still being set up for this long (rows of older builds). */
export const QUEUED_GRACE_MS = 10 * 60_000;

export interface LivenessOptions {
  host?: string;
  now?: number;
  /** Whether a pid is alive on this host; `process.kill(pid, 0)` by default. */
  isAlive?: (pid: number) => boolean;
  /** When this machine booted (epoch ms): an owner that started before it is gone. */
  bootTime?: number;
}

type Resolved = Required<LivenessOptions>;

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function resolveOptions(options: LivenessOptions = {}): Resolved {
  const now = options.now ?? Date.now();
  return {
    host: options.host ?? hostname(),
    now,
    isAlive: options.isAlive ?? isProcessAlive,
    // A minute of slack: uptime and the clock are read at slightly different moments.
    bootTime: options.bootTime ?? now - uptime() * 1000 - 60_000,
  };
}

/** Why the recorded owner of `run` is gone, or null when it lives (or none is recorded). */
function ownerGoneReason(run: RunProcessInfo, o: Resolved): string | null {
  if (run.trainerPid === null) return null;
  if (run.trainerHost !== null && run.trainerHost !== o.host) {
    if (run.heartbeatAt !== null && o.now - run.heartbeatAt <= STALE_HEARTBEAT_MS) return null;
    const minutes = run.heartbeatAt === null ? null : Math.round((o.now - run.heartbeatAt) / 60_000);
    return `its trainer process ${run.trainerPid} on host ${run.trainerHost} has not reported ${minutes === null ? 'a heartbeat' : `for ${minutes} min`}`;
  }
  if (run.trainerStartedAt !== null && run.trainerStartedAt < o.bootTime) {
    return `its trainer process ${run.trainerPid} started before this machine restarted`;
  }
  if (run.trainerPid === process.pid || o.isAlive(run.trainerPid)) return null;
  return `its trainer process ${run.trainerPid} no longer exists`;
}

/** Whether a live process holds the run (setting it up counts; this process counts too). */
export function isHeld(run: RunProcessInfo, options: LivenessOptions = {}): boolean {
  const o = resolveOptions(options);
  if (run.trainerPid === null) {
    return run.status === 'queued' && o.now - run.createdAt < QUEUED_GRACE_MS;
  }
  return ownerGoneReason(run, o) === null;
}

function heldByAnother(run: RunProcessInfo, o: Resolved): boolean {
  const self = run.trainerPid === process.pid && (run.trainerHost ?? o.host) === o.host;
  return !self && isHeld(run, o);
}

/**
 * Why an unfinished run (queued, running, stopping) was left by an owner that is gone, or null
 * while it may still be training. Runs for which this says gone read `interrupted`.
 */
export function abandonedReason(run: RunProcessInfo, options: LivenessOptions = {}): string | null {
  const o = resolveOptions(options);
  if (run.trainerPid === null) {
    // Written before trainers recorded their pid, or still setting up (queued).
    if (run.status === 'queued' && o.now - run.createdAt < QUEUED_GRACE_MS) return null;
    return `no trainer process was recorded for this ${run.status} run`;
  }
  return ownerGoneReason(run, o);
}

/**
 * Marks unfinished runs whose owner is gone `interrupted` (resumable from their last
 * checkpoint); returns their ids. `skip` leaves alone runs whose trainer this process watches
 * itself (the run manager records how its child ended).
 */
export function markAbandonedRuns(store: Store, options: LivenessOptions & { skip?: ReadonlySet<number> } = {}): number[] {
  // A read-only store shows the stored status; whoever can write the folder marks the run.
  if (store.readOnly) return [];
  const o = resolveOptions(options);
  const marked: number[] = [];
  for (const run of store.runs.unfinished()) {
    if (options.skip?.has(run.id)) continue;
    const reason = abandonedReason(run, o);
    if (reason === null) continue;
    // A run killed before its first save has nothing to resume from: say what does.
    const latest = store.checkpoints.latest(run.id);
    const next = !latest
      ? `it saved no checkpoint to resume from (trainer.save_freq): train it again with New run from this config (turnlab train --config run:${run.id})`
      : latest.warmStartStep !== null
        ? `resume it: its warm start goes on from its checkpoint at step ${latest.warmStartStep}`
        : 'resume it from its last checkpoint';
    store.runs.update(run.id, {
      status: 'interrupted',
      finishedAt: o.now,
      error: `interrupted: the run was left ${run.status} and ${reason}; ${next}`,
    });
    marked.push(run.id);
  }
  return marked;
}

/** The refusal naming the run, its owner and how to stop it. */
export function busyMessage(run: RunProcessInfo, action: string): string {
  if (run.trainerPid === null) {
    return `cannot ${action} run ${run.id} (${run.name}): it is being set up to train (queued); wait for it to start, then stop it`;
  }
  const since = run.trainerStartedAt === null ? '' : ` since ${new Date(run.trainerStartedAt).toISOString()}`;
  const kill = process.platform === 'win32' ? '' : `, or \`kill -INT ${run.trainerPid}\` on ${run.trainerHost ?? 'its host'}`;
  return (
    `cannot ${action} run ${run.id} (${run.name}): process ${run.trainerPid} on host ${run.trainerHost ?? 'unknown'} is training it${since}; ` +
    `stop it first (\`turnlab stop ${run.id}\`, Stop in the app or browser workbench, Ctrl-C in the terminal that trains it${kill}) and try again`
  );
}

export class RunBusyError extends StoreError {
  constructor(
    readonly owner: RunProcessInfo,
    action: string,
  ) {
    super('RUN_BUSY', busyMessage(owner, action));
  }
}

/** Throws RunBusyError when a live process other than this one owns the run. */
export function assertRunFree(store: Store, runId: number, action: string): void {
  const run = store.runs.processInfo(runId);
  if (!run) throw new StoreError('RUN_NOT_FOUND', `unknown run ${runId}`);
  if (heldByAnother(run, resolveOptions())) throw new RunBusyError(run, action);
}

/** A run this process owns: it beats until released. */
export interface RunLease {
  readonly runId: number;
  /** Records a sign of life now (also done every HEARTBEAT_MS while the event loop runs). */
  beat(): void;
  /** Stops the heartbeat and gives the run up. */
  release(): void;
}

/** Records this process as the run's owner, as claimRun does, without a heartbeat of its own. */
export function takeRun(store: Store, runId: number, action: string): void {
  const o = resolveOptions();
  const blocker = store.runs.claimOwner(runId, { pid: process.pid, host: o.host, now: o.now }, (current) =>
    // A run without an owner is free to take: its creator takes it right after creating it.
    current.trainerPid !== null && heldByAnother(current, o),
  );
  if (blocker) throw new RunBusyError(blocker, action);
}

/**
 * Takes the run for this process, atomically with the check that no live process holds it;
 * throws RunBusyError naming the owner otherwise. Taking a run this process owns already is
 * allowed (resume takes it before truncating, then trains it).
 */
export function claimRun(store: Store, runId: number, action: string): RunLease {
  takeRun(store, runId, action);
  const pid = process.pid;
  const host = hostname();
  const beat = () => {
    try {
      store.runs.heartbeat(runId, pid, host, Date.now());
    } catch {
      // Busy or closing: a heartbeat is advisory, the next one will do.
    }
  };
  const timer = setInterval(beat, HEARTBEAT_MS);
  timer.unref?.();
  return {
    runId,
    beat,
    release() {
      clearInterval(timer);
      try {
        if (store.isOpen) store.runs.releaseOwner(runId, pid, host);
      } catch {
        // A dead pid reads as gone anyway.
      }
    },
  };
}
