import { dirname, resolve } from 'node:path';
import { loadRunConfigWithSource, withAbsoluteModulePaths } from '../../trainer-core';
import { flattenConfig, formatConfigValue } from '../../preload/config-diff';
import type { Store } from '../store/db';
import { StoreError } from '../store/errors';
import type { RunRecord } from '../store/types';
import { assertRunFree } from './run-owner';
import { deleteRun } from './run-admin';

/**
 * `turnlab train --resume-existing`: a Slurm task started again (`scontrol requeue`, preemption
 * with PreemptMode=REQUEUE, a requeue after a node failure) runs its batch script again, the same
 * `train` in the same bundle. There its earlier attempt left a run of the same name: that run
 * continues from its latest checkpoint, so the sweep gets one run per seed with every iteration
 * once, not a second run trained from iteration 0 beside a partial one.
 */
export type ExistingRunPlan =
  | { action: 'train'; replaced?: RunRecord }
  | { action: 'resume'; run: RunRecord }
  | { action: 'completed'; run: RunRecord; marked?: boolean };

/** Slurm sets SLURM_RESTART_COUNT in a job it started again: its earlier attempt has ended. */
function slurmRestarted(env: NodeJS.ProcessEnv): boolean {
  return Number(env.SLURM_RESTART_COUNT ?? 0) > 0;
}

/** The first setting where the config asked for differs from the one the run trains with. */
function firstDifference(asked: unknown, stored: unknown): string | null {
  const a = flattenConfig(asked);
  const b = flattenConfig(stored);
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) return `${key} is ${formatConfigValue(a[key])} here, ${formatConfigValue(b[key])} in the run`;
  }
  return null;
}

/**
 * What `train --resume-existing` does in this data folder: train a new run (none of that name),
 * resume the one there (deleting it first when it saved no checkpoint: it is trained again from
 * the start), or nothing (it completed, or it has its last iteration's checkpoint and is marked
 * completed). Refuses a name several runs share, a run of another config, and a run a live
 * trainer holds (unless Slurm says this is its job started again).
 */
export async function planExistingRun(
  store: Store,
  request: { configPath: string; overrides: string[]; name?: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<ExistingRunPlan> {
  const loaded = loadRunConfigWithSource(request.configPath, request.overrides);
  const cfg = withAbsoluteModulePaths(loaded.cfg, dirname(resolve(request.configPath)));
  const name = (request.name ?? cfg.trainer.experiment_name).trim();
  const found = store.runs.findByName(name);
  if (found.length === 0) return { action: 'train' };
  if (found.length > 1) {
    throw new StoreError('RUN_AMBIGUOUS', `--resume-existing: runs ${found.map((r) => r.id).join(', ')} of ${store.dataDir} are all named '${name}'; it continues one run of its name: give --name a name of its own, or delete the others (turnlab delete)`);
  }
  const run = found[0];
  const difference = firstDifference(cfg, run.config);
  if (difference !== null) {
    // A completed run is not resumed as it is, but continued to a larger total.
    const instead = run.status === 'completed' ? `it completed: turnlab resume ${run.id} --set trainer.total_training_steps=N trains it further` : `or resume it as it is (turnlab resume ${run.id})`;
    throw new StoreError('INVALID_INPUT', `--resume-existing: run ${run.id} (${name}) in ${store.dataDir} trains another config (${difference}); give --name a name of its own to train a new run, ${instead}`);
  }
  if (run.status === 'completed') return { action: 'completed', run };
  if (slurmRestarted(env)) {
    // The earlier attempt's trainer is gone, but on another node its heartbeat would hold the run for minutes.
    store.runs.forgetOwner(run.id, 'interrupted: its Slurm job was started again (requeued or preempted); resumed from its last checkpoint');
  }
  assertRunFree(store, run.id, 'resume');
  const latest = store.checkpoints.latest(run.id);
  if (latest && latest.warmStartStep === null && latest.iteration >= cfg.trainer.total_training_steps) {
    // Its trainer died after the last checkpoint, when only the run's status was left to write:
    // every iteration is trained and kept, and a resume would have nothing to train.
    store.runs.update(run.id, { status: 'completed', error: null, finishedAt: run.finishedAt ?? Date.now() });
    return { action: 'completed', run, marked: true };
  }
  if (latest) return { action: 'resume', run };
  // Nothing to continue from: the earlier attempt's iterations go, and the run trains from the start.
  await deleteRun(store, run.id, new Set());
  return { action: 'train', replaced: run };
}
