import { hostname } from 'node:os';
import type { Store } from '../store/db';
import type { RunProcessInfo } from '../store/repositories/runs';

/**
 * Start-up recovery: runs left `queued`, `running` or `stopping` by a process that no longer
 * exists become `interrupted` (resumable from their last checkpoint). A run whose recorded
 * trainer is still alive on this host (the CLI training in another terminal) is left alone, and
 * so is one recorded on another host, whose processes we cannot see.
 */

/** A queued run gets its pid only once its trainer has set up; give it this long to get there. */
export const QUEUED_GRACE_MS = 10 * 60_000;

export interface RecoveryOptions {
  host?: string;
  now?: number;
  /** Whether a pid is alive on this host; `process.kill(pid, 0)` by default. */
  isAlive?: (pid: number) => boolean;
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why `run` was left unfinished by a dead process, or null when it may still be training. */
export function abandonedReason(run: RunProcessInfo, options: Required<RecoveryOptions>): string | null {
  if (run.trainerPid === null) {
    // Written before trainers recorded their pid, or still setting up (queued).
    if (run.status === 'queued' && options.now - run.createdAt < QUEUED_GRACE_MS) return null;
    return `no trainer process was recorded for this ${run.status} run`;
  }
  if (run.trainerHost !== null && run.trainerHost !== options.host) return null;
  if (options.isAlive(run.trainerPid)) return null;
  return `its trainer process ${run.trainerPid} no longer exists`;
}

/** Marks abandoned runs `interrupted`; returns their ids. */
export function recoverInterruptedRuns(store: Store, options: RecoveryOptions = {}): number[] {
  const resolved: Required<RecoveryOptions> = {
    host: options.host ?? hostname(),
    now: options.now ?? Date.now(),
    isAlive: options.isAlive ?? isProcessAlive,
  };
  const recovered: number[] = [];
  for (const run of store.runs.unfinished()) {
    const reason = abandonedReason(run, resolved);
    if (reason === null) continue;
    store.runs.update(run.id, {
      status: 'interrupted',
      finishedAt: resolved.now,
      error: `interrupted: the run was left ${run.status} and ${reason}; resume it from its last checkpoint`,
    });
    recovered.push(run.id);
  }
  return recovered;
}
