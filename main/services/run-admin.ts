import { existsSync, rmSync } from 'node:fs';
import { join, relative, resolve, sep, isAbsolute } from 'node:path';
import { checkpointsDir, tensorBoardDir } from '../paths';
import type { Store } from '../store/db';
import type { CheckpointRecord, RunRecord } from '../store/types';
import { busyMessage, claimRun, isHeld, RunBusyError } from './run-owner';
import { runFolders } from './tensorboard-folders';
import { normaliseTags, RUN_LABEL_LIMITS, runNameProblem, tagsProblem } from '../../preload/run-labels';

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

function requireRun(store: Store, runId: number): RunRecord {
  const run = store.runs.get(runId);
  if (!run) throw new RunAdminError('NOT_FOUND', `unknown run ${runId}: no run has this id (the Runs view lists them)`);
  return run;
}

/** The most a run's name, each tag, the tag list and the notes may hold (the API's and the CLI's). */
export const RUN_EDIT_LIMITS = { ...RUN_LABEL_LIMITS, notes: 20_000 } as const;

export function editRun(store: Store, runId: number, edit: RunEdit): RunRecord {
  return store.runs.update(runId, checkedEdit(store, runId, edit));
}

/** The edit as it would be stored (name and tags trimmed), refused with the reason before anything is written. */
function checkedEdit(store: Store, runId: number, edit: RunEdit): RunEdit {
  const run = requireRun(store, runId);
  const name = edit.name?.trim();
  const nameProblem = name === undefined ? null : runNameProblem(name);
  if (nameProblem !== null) throw new RunAdminError('REFUSED', nameProblem);
  const tags = edit.tags === undefined ? undefined : normaliseTags(edit.tags);
  const tagProblem = tags === undefined ? null : tagsProblem(tags, run.tags);
  if (tagProblem !== null) throw new RunAdminError('REFUSED', tagProblem);
  if (edit.notes !== undefined && edit.notes.length > RUN_EDIT_LIMITS.notes) {
    throw new RunAdminError('REFUSED', `a run's notes hold at most ${RUN_EDIT_LIMITS.notes} characters (these have ${edit.notes.length})`);
  }
  return { name, tags, notes: edit.notes };
}

/** Tags to add to and take from many runs at once (the Runs view's selection, `turnlab tag`). */
export interface Retag {
  add: readonly string[];
  remove: readonly string[];
}

/** What a retag did: every run named, and how many of them it changed (a tag added that a run had, or removed that it lacked, changes nothing). */
export interface RetagResult {
  runs: RunRecord[];
  changed: number;
}

/**
 * Adds and removes tags on every run given, in one transaction after every run's new tags are
 * checked, so one run past a limit leaves all of them as they were; a refusal names that run.
 */
export function retagRuns(store: Store, runIds: readonly number[], retag: Retag): RetagResult {
  const added = normaliseTags(retag.add);
  const removed = new Set(normaliseTags(retag.remove));
  if (added.length === 0 && removed.size === 0) throw new RunAdminError('REFUSED', 'say which tag to add or remove: an empty tag is no tag');
  const both = added.find((tag) => removed.has(tag));
  if (both !== undefined) throw new RunAdminError('REFUSED', `'${both}' is both added and removed: give it once, to add or to remove`);
  const addedProblem = tagsProblem(added);
  // Named as the call names them (`add`, the CLI's --add): the run's own tags are not the problem.
  if (addedProblem !== null) throw new RunAdminError('REFUSED', `tags to add: ${addedProblem}`);
  const edits = [...new Set(runIds)].map((runId) => {
    const run = requireRun(store, runId);
    try {
      const edit = checkedEdit(store, runId, { tags: [...run.tags.filter((tag) => !removed.has(tag)), ...added] });
      return { runId, edit, changed: edit.tags!.join('\n') !== run.tags.join('\n') };
    } catch (error) {
      throw error instanceof RunAdminError ? new RunAdminError(error.code, `run ${run.id} (${run.name}): ${error.message}`) : error;
    }
  });
  const runs = store.transaction(() => edits.map(({ runId, edit }) => store.runs.update(runId, edit)));
  return { runs, changed: edits.filter((e) => e.changed).length };
}

/** Refuses, before anything is deleted and saying so, when one of the runs is unknown or trains. */
export function checkDeletable(store: Store, runIds: readonly number[], activeRunIds: ReadonlySet<number>): void {
  const none = runIds.length === 1 ? 'nothing was deleted' : `none of the ${runIds.length} runs was deleted`;
  try {
    for (const runId of runIds) {
      requireRun(store, runId);
      refuseWhileTraining(store, runId, activeRunIds, 'delete');
    }
  } catch (error) {
    throw error instanceof RunAdminError ? new RunAdminError(error.code, `${error.message}; ${none}`) : error;
  }
}

/**
 * Deletes many runs, every one checked first (known, not training), so a refusal leaves them all;
 * returns the ids deleted, in the order given. A run claimed between the check and its turn (a
 * resume in another terminal) stops the deletion there, and the refusal says which went before.
 */
export async function deleteRuns(
  store: Store,
  runIds: readonly number[],
  activeRunIds: ReadonlySet<number>,
  deleted: (runId: number) => void = () => {},
): Promise<number[]> {
  const ids = [...new Set(runIds)];
  checkDeletable(store, ids, activeRunIds);
  const done: number[] = [];
  for (const runId of ids) {
    try {
      await deleteRun(store, runId, activeRunIds);
    } catch (error) {
      if (!(error instanceof RunAdminError) || done.length === 0) throw error;
      throw new RunAdminError(error.code, `${error.message}; run${done.length === 1 ? '' : 's'} ${done.join(', ')} ${done.length === 1 ? 'was' : 'were'} deleted before it`);
    }
    done.push(runId);
    deleted(runId);
  }
  return done;
}

/**
 * Refuses, naming the owner and how to stop it, while a run may be training: the app's own
 * trainers, or a live process recorded as its owner (e.g. the CLI in another terminal).
 */
export function refuseWhileTraining(store: Store, runId: number, activeRunIds: ReadonlySet<number>, action: string): void {
  const run = store.runs.processInfo(runId);
  if (!run) throw new RunAdminError('NOT_FOUND', `unknown run ${runId} (see listRuns for the run ids)`);
  if (activeRunIds.has(runId) || isHeld(run)) throw new RunAdminError('REFUSED', busyMessage(run, action));
}

/** How many episodes (with their turns) one transaction of a run deletion removes. */
export const DELETE_CHUNK_EPISODES = 200;

export interface DeleteOptions {
  chunkEpisodes?: number;
  /** Pause between transactions, so writers of other processes (trainers) get the lock. */
  pauseMs?: number;
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

/**
 * Deletes a run with its metrics, episodes, turns, checkpoints and checkpoint folder, in many
 * short transactions with a pause between them: one long transaction on a large run would keep
 * trainers of other runs waiting past their busy timeout. This process owns the run meanwhile,
 * so nobody resumes it half deleted; a deletion cut short leaves a smaller run to delete again.
 */
export async function deleteRun(
  store: Store,
  runId: number,
  activeRunIds: ReadonlySet<number>,
  options: DeleteOptions = {},
): Promise<void> {
  requireRun(store, runId);
  refuseWhileTraining(store, runId, activeRunIds, 'delete');
  let lease;
  try {
    lease = claimRun(store, runId, 'delete');
  } catch (error) {
    if (error instanceof RunBusyError) throw new RunAdminError('REFUSED', error.message);
    throw error;
  }
  try {
    while (store.runs.deleteChunk(runId, options.chunkEpisodes ?? DELETE_CHUNK_EPISODES) > 0) {
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 20));
    }
  } finally {
    lease.release();
  }
  const folder = runCheckpointFolder(store, runId);
  if (existsSync(folder)) rmSync(folder, { recursive: true, force: true });
  // The copy `trainer.logger: [tensorboard]` wrote into the data folder goes with the run ($TENSORBOARD_DIR's is the user's).
  for (const copy of runFolders(tensorBoardDir(store.dataDir), runId)) rmSync(copy, { recursive: true, force: true });
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
  refuseWhileTraining(store, checkpoint.runId, activeRunIds, `delete checkpoint ${checkpointId} of`);
  const folder = checkpointFolder(store, checkpoint);
  store.checkpoints.remove(checkpointId);
  if (existsSync(folder)) rmSync(folder, { recursive: true, force: true });
}
