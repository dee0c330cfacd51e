// A checkpoint as the commands name it: a run (its latest), `ckpt:<id>`, or a folder.
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Store } from '../store/db';
import { StoreError } from '../store/errors';
import type { CheckpointRecord, RunRecord } from '../store/types';
import { shellQuote } from '../shell-quote';

/** The run `ref` names; a path that names no run and no folder is said to be a missing folder, not an unknown run. */
function runOrMissingFolder(store: Store, ref: string): RunRecord {
  try {
    return store.runs.resolve(ref);
  } catch (error) {
    if (!/[/\\]/.test(ref)) throw error;
    throw new StoreError('RUN_NOT_FOUND', `no folder ${resolve(ref)} (a checkpoint is named by its folder, ckpt:<id> from 'turnlab show <run>', or a run id or name for its latest)`);
  }
}

/** The checkpoint recorded at `rel`, a folder relative to the data folder. */
function checkpointAtPath(store: Store, rel: string): CheckpointRecord | undefined {
  for (const runId of store.runs.allIds()) {
    const match = store.checkpoints.listByRun(runId).find((c) => c.path === rel);
    if (match) return match;
  }
  return undefined;
}

/** A checkpoint named by run, `ckpt:<id>`, or folder path. */
export function resolveCheckpoint(store: Store, ref: string): CheckpointRecord {
  const idMatch = /^ckpt:(\d+)$/.exec(ref.trim());
  if (idMatch) {
    const found = store.checkpoints.get(Number(idMatch[1]));
    if (!found) {
      // Ids are never given twice: one given before was saved and is gone (pruned, or its run deleted).
      const gone = store.checkpoints.highestIdEver() >= Number(idMatch[1]);
      throw new StoreError(
        'RUN_NOT_FOUND',
        gone
          ? `checkpoint ${idMatch[1]} no longer exists: a run keeps its last trainer.keep_last_n checkpoints, and a deleted run takes its own with it; 'turnlab show <run>' lists those there are`
          : `unknown checkpoint '${ref}' (see 'turnlab show <run>')`,
      );
    }
    return found;
  }
  const asPath = resolve(ref);
  if ((ref.includes('/') || ref.includes('\\')) && existsSync(asPath)) {
    const rel = isAbsolute(ref) || existsSync(asPath) ? relative(store.dataDir, asPath) : ref;
    const match = checkpointAtPath(store, rel);
    if (match) return match;
    // A checkpoint downloaded from the workbench or copied from another data folder has no record here.
    throw new StoreError(
      'RUN_NOT_FOUND',
      `folder ${ref} is not a checkpoint of this data folder (${store.dataDir}): resume and eval take the checkpoints recorded here; ` +
        `to bring a run with its checkpoints from another data folder, turnlab export-run <run> --bundle DIR there and turnlab import DIR here, ` +
        `or start a new run from this policy with model.path=${shellQuote(asPath)}`,
    );
  }
  // `turnlab show` prints folders relative to the data folder (checkpoints/run-1/iter-60).
  const shown = !isAbsolute(ref) && /[/\\]/.test(ref) ? checkpointAtPath(store, relative(store.dataDir, resolve(store.dataDir, ref))) : undefined;
  if (shown) return shown;
  const run = runOrMissingFolder(store, ref);
  const latest = store.checkpoints.latest(run.id);
  if (!latest) {
    // A run stopped before its first save, or a warm start alone (steps 0) that kept none.
    throw new StoreError(
      'RUN_NOT_FOUND',
      `run ${run.id} (${run.name}) saved no checkpoint (trainer.save_freq; a warm start alone keeps one with warm_start.save_checkpoint=true); turnlab train --config run:${run.id} trains it again`,
    );
  }
  return latest;
}

/**
 * A checkpoint `ref` names that holds a finished policy, for `what` (evaluate it, fork from it,
 * export it): a warm-start checkpoint (`warm_start.save_freq`) is refused, saying it only
 * resumes its own run.
 */
export function resolveFinishedCheckpoint(store: Store, ref: string, what: string): CheckpointRecord {
  const checkpoint = resolveCheckpoint(store, ref);
  if (checkpoint.warmStartStep !== null) throw new StoreError('INVALID_INPUT', warmStartOnlyMessage(store, checkpoint, what));
  return checkpoint;
}

/** Why a warm-start checkpoint is not for `what`, and what it is for. */
export function warmStartOnlyMessage(store: Store, checkpoint: CheckpointRecord, what: string): string {
  const run = store.runs.get(checkpoint.runId);
  const name = run ? `run ${run.id} (${run.name})` : `run ${checkpoint.runId}`;
  return (
    `ckpt:${checkpoint.id} of ${name} is a warm-start checkpoint, saved at step ${checkpoint.warmStartStep} of its warm start (warm_start.save_freq): ` +
    `no finished policy to ${what}; it only resumes its run (turnlab resume ${checkpoint.runId}), whose iter-0 and later checkpoints are`
  );
}
