import { existsSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative, resolve, sep, isAbsolute } from 'node:path';
import { checkpointsDir } from '../paths';
import type { Store } from '../store/db';
import type { CheckpointRecord, RunRecord } from '../store/types';
import { isProcessAlive } from './recovery';

/**
 * Managing stored runs and checkpoints from the workbench: rename, tag, note, delete. Nothing
 * here loads a model; deleting removes the rows and the checkpoint folders on disk.
 */

export class RunAdminError extends Error {
  constructor(
    readonly code: 'NOT_FOUND' | 'REFUSED',
    message: string,
  ) {
    super(message);
    this.name = 'RunAdminError';
  }
}

export interface RunEdit {
  name?: string;
  tags?: string[];
  notes?: string;
}

/** Tags trimmed, empty ones dropped, each once, in the order given. */
export function normaliseTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim()).filter((t) => t.length > 0))];
}

function requireRun(store: Store, runId: number): RunRecord {
  const run = store.runs.get(runId);
  if (!run) throw new RunAdminError('NOT_FOUND', `unknown run ${runId}: no run has this id (the Runs view lists them)`);
  return run;
}

export function editRun(store: Store, runId: number, edit: RunEdit): RunRecord {
  requireRun(store, runId);
  const name = edit.name?.trim();
  if (name !== undefined && name.length === 0) throw new RunAdminError('REFUSED', 'a run name cannot be empty');
  return store.runs.update(runId, {
    name,
    tags: edit.tags === undefined ? undefined : normaliseTags(edit.tags),
    notes: edit.notes,
  });
}

/**
 * Whether a run may be training right now: the app's own trainers, or a run still marked live
 * whose recorded process exists (e.g. the CLI in another terminal).
 */
export function mayBeTraining(store: Store, runId: number, activeRunIds: ReadonlySet<number>): boolean {
  if (activeRunIds.has(runId)) return true;
  const live = store.runs.unfinished().find((r) => r.id === runId);
  if (!live) return false;
  if (live.trainerPid === null || (live.trainerHost !== null && live.trainerHost !== hostname())) return true;
  return isProcessAlive(live.trainerPid);
}

/** `checkpoints/run-<id>` of a run. */
export function runCheckpointFolder(store: Store, runId: number): string {
  return join(checkpointsDir(store.dataDir), `run-${runId}`);
}

/**
 * The absolute folder of a checkpoint, refused unless it lies inside the data folder's
 * checkpoints folder: a row edited by hand must not make us delete or send anything else.
 */
export function checkpointFolder(store: Store, checkpoint: CheckpointRecord): string {
  const root = resolve(checkpointsDir(store.dataDir));
  const folder = resolve(store.dataDir, checkpoint.path);
  const inside = relative(root, folder);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside) || !folder.startsWith(root + sep)) {
    throw new RunAdminError('REFUSED', `checkpoint ${checkpoint.id} points outside the checkpoints folder (${checkpoint.path})`);
  }
  return folder;
}

/** Deletes a run with its metrics, episodes, turns, checkpoints and checkpoint folder. */
export function deleteRun(store: Store, runId: number, activeRunIds: ReadonlySet<number>): void {
  requireRun(store, runId);
  if (mayBeTraining(store, runId, activeRunIds)) {
    throw new RunAdminError('REFUSED', `run ${runId} is training; stop it before deleting it`);
  }
  store.runs.delete(runId);
  const folder = runCheckpointFolder(store, runId);
  if (existsSync(folder)) rmSync(folder, { recursive: true, force: true });
}

export function requireCheckpoint(store: Store, checkpointId: number): CheckpointRecord {
  const checkpoint = store.checkpoints.get(checkpointId);
  if (!checkpoint) {
    throw new RunAdminError('NOT_FOUND', `unknown checkpoint ${checkpointId} (see listCheckpoints for a run's checkpoints)`);
  }
  return checkpoint;
}

/** Deletes one checkpoint's folder and row; refused while its run trains (it may be pruning or saving). */
export function deleteCheckpoint(store: Store, checkpointId: number, activeRunIds: ReadonlySet<number>): void {
  const checkpoint = requireCheckpoint(store, checkpointId);
  if (mayBeTraining(store, checkpoint.runId, activeRunIds)) {
    throw new RunAdminError('REFUSED', `run ${checkpoint.runId} is training; stop it before deleting its checkpoints`);
  }
  const folder = checkpointFolder(store, checkpoint);
  store.checkpoints.remove(checkpointId);
  if (existsSync(folder)) rmSync(folder, { recursive: true, force: true });
}
