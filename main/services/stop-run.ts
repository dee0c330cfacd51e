// Stopping a run that another process on this machine trains: `turnlab train` in a terminal,
// a seed of `turnlab train --seeds`, or the app's or `serve`'s trainer seen from the other. The
// trainer ends its iteration, saves a checkpoint and records `stopped` on SIGTERM, as on
// Ctrl-C; a second signal would abort it, so a run already stopping is not signalled again.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Store } from '../store/db';
import type { RunProcessInfo } from '../store/repositories/runs';
import { abandonedReason, isHeld } from './run-owner';
import { UNFINISHED_STATUSES } from '../store/types';
import { RunAdminError } from './run-admin';

/** A pid's process may have started this long after its owner's recorded claim (clock reads). */
export const START_SLACK_MS = 5_000;

/** Linux's USER_HZ, the unit of /proc/<pid>/stat's start time (100 on every Linux platform Node runs on). */
const TICKS_PER_SECOND = 100;

/** When process `pid` started (epoch ms), read from /proc; null where there is no /proc or no such process. */
export function processStartedAt(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    if (!Number.isFinite(ticks) || !Number.isFinite(bootSeconds)) return null;
    return bootSeconds * 1000 + (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

export interface StopOutcome {
  runId: number;
  name: string;
  pid: number;
  /** False when the run was already stopping: its trainer was not signalled again. */
  signalled: boolean;
}

export interface StopOptions {
  host?: string;
  /** Sends the stop; process.kill by default. */
  kill?: (pid: number, signal: NodeJS.Signals) => void;
  startedAt?: (pid: number) => number | null;
}

function label(run: RunProcessInfo): string {
  return `run ${run.id} (${run.name})`;
}

/**
 * Asks the process that trains `runId` on this machine to stop after its iteration. Refused,
 * saying why and what to do instead, when no live process trains it, when it trains on another
 * host, or when the recorded pid now belongs to a process that started after the claim.
 */
export function stopTrainingProcess(store: Store, runId: number, options: StopOptions = {}): StopOutcome {
  const run = store.runs.processInfo(runId);
  if (!run) throw new RunAdminError('NOT_FOUND', `unknown run ${runId}: no run has this id (turnlab runs lists them)`);
  const host = options.host ?? hostname();
  if (!isHeld(run, { host })) {
    const gone = UNFINISHED_STATUSES.has(run.status) ? abandonedReason(run, { host }) : null;
    if (gone) throw new RunAdminError('REFUSED', `${label(run)} is not training: ${gone}; resume it with \`turnlab resume ${run.id}\``);
    throw new RunAdminError('REFUSED', `${label(run)} is not training (it is ${run.status}); nothing to stop`);
  }
  if (run.trainerPid === null) {
    throw new RunAdminError('REFUSED', `${label(run)} is being set up to train (queued); stop it once it has started`);
  }
  if (run.trainerHost !== null && run.trainerHost !== host) {
    throw new RunAdminError(
      'REFUSED',
      `${label(run)} trains on host ${run.trainerHost} (process ${run.trainerPid}), not on this one (${host}); ` +
        `run \`turnlab stop ${run.id}\` there, or \`turnlab cancel-job\` for a cluster task`,
    );
  }
  if (run.trainerPid === process.pid) {
    throw new RunAdminError('REFUSED', `${label(run)} is trained by this very process; stop it where it was started`);
  }
  const started = (options.startedAt ?? processStartedAt)(run.trainerPid);
  if (started !== null && run.trainerStartedAt !== null && started > run.trainerStartedAt + START_SLACK_MS) {
    throw new RunAdminError(
      'REFUSED',
      `${label(run)}'s trainer (process ${run.trainerPid}) is gone: that pid now belongs to a process started at ` +
        `${new Date(started).toISOString()}, after the run was taken; nothing was signalled`,
    );
  }
  if (run.status === 'stopping') return { runId: run.id, name: run.name, pid: run.trainerPid, signalled: false };
  if (!store.runs.markStopping(run.id)) {
    throw new RunAdminError('REFUSED', `${label(run)} ended while being stopped (it is ${store.runs.get(run.id)?.status ?? 'deleted'}); nothing was signalled`);
  }
  (options.kill ?? ((pid, signal) => process.kill(pid, signal)))(run.trainerPid, 'SIGTERM');
  return { runId: run.id, name: run.name, pid: run.trainerPid, signalled: true };
}
