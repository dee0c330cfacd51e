// A seed group seen from any process: the seeds it still waits to start (in whichever process
// queued them: the app, `serve`, `turnlab train --seeds` in a terminal) and stopping it whole,
// the queued seeds and the runs that train. W&B's "stop sweep", for a group of seeds.
import { hostname } from 'node:os';
import type { QueuedSeedRunDto, StopSeedGroupResultDto } from '../../preload/contract';
import { seedGroupOf } from '../../preload/seed-list';
import type { Store } from '../store/db';
import type { SeedQueueOwner } from '../store/repositories/seed-queue';
import { RunAdminError } from './run-admin';
import { isHeld, isProcessAlive } from './run-owner';
import { processStartedAt, START_SLACK_MS, stopTrainingProcess, type StopOptions } from './stop-run';

/** Whether a queue's owner is gone: on this host only (another host's process cannot be asked). */
function ownerGone(owner: SeedQueueOwner, host: string): boolean {
  if (owner.host !== host) return false;
  if (!isProcessAlive(owner.pid)) return true;
  const started = processStartedAt(owner.pid);
  return started !== null && started > owner.startedAt + START_SLACK_MS;
}

/** Removes the rows of owners that died (a terminal closed, a crash) before their groups ended. */
function pruneDeadOwners(store: Store, host: string): void {
  if (store.readOnly) return;
  for (const owner of store.seedQueue.owners()) if (ownerGone(owner, host)) store.seedQueue.release(owner);
}

/** Seeds waiting for a slot in a live process, in queue order, then the seeds stops cancelled. */
export function queuedSeeds(store: Store, host = hostname()): QueuedSeedRunDto[] {
  pruneDeadOwners(store, host);
  const waiting = store.seedQueue.waiting().filter((row) => !ownerGone(row.owner, host));
  return [
    ...waiting.map((row) => ({ group: row.group, seed: row.seed, name: row.runName, cancelled: false })),
    ...store.seedQueue.cancelled().map((row) => ({ group: row.group, seed: row.seed, name: row.runName, cancelled: true })),
  ];
}

/**
 * Stops a seed group: its seeds not yet started never start (their owner reads that before
 * starting each), and each of its runs that trains stops after its iteration with a checkpoint.
 * `stopOwn` stops a run this process's run manager trains and says whether it did; the others
 * are stopped through their trainer's pid. A run still being set up is stopped by the group's
 * owner, which looks at the group again once the run exists.
 */
export function stopSeedGroup(
  store: Store,
  group: string,
  stopOwn: (runId: number) => boolean = () => false,
  options: StopOptions = {},
): StopSeedGroupResultDto {
  const host = options.host ?? hostname();
  pruneDeadOwners(store, host);
  const queued = store.seedQueue.has(group);
  const members = store.runs.progress().filter((run) => seedGroupOf(JSON.parse(run.tags) as string[]) === group);
  if (members.length === 0 && !queued) {
    throw new RunAdminError('NOT_FOUND', `no seed group named ${JSON.stringify(group)}: the Runs view's Seed groups and \`turnlab runs --where tag=seeds:<name>\` show them`);
  }
  const wasStopped = store.seedQueue.isStopped(group);
  const cancelledSeeds = queued ? store.seedQueue.stop(group) : [];
  const stoppedRuns: StopSeedGroupResultDto['stoppedRuns'] = [];
  for (const member of members) {
    const run = store.runs.processInfo(member.id);
    if (!run || run.trainerPid === null || !isHeld(run, { host })) continue;
    if (stopOwn(run.id)) {
      stoppedRuns.push({ runId: run.id, name: run.name, pid: null, alreadyStopping: false });
      continue;
    }
    const outcome = stopTrainingProcess(store, run.id, { ...options, host });
    stoppedRuns.push({ runId: run.id, name: run.name, pid: outcome.pid, alreadyStopping: !outcome.signalled });
  }
  if (cancelledSeeds.length === 0 && stoppedRuns.length === 0 && (!queued || wasStopped)) {
    throw new RunAdminError('REFUSED', `seed group ${group} has no seed queued and no run training; nothing to stop`);
  }
  return { group, cancelledSeeds, stoppedRuns };
}
