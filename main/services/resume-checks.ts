// What a resume or fork checks before anything stored changes: the checkpoint it names, the
// config it continues under (its own with the overrides), and that the run stays one run (seed,
// estimator, model folder) unless it forks.
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError, parseRunConfigWithSource, type RunConfig, type RunConfigWithSource } from '../../trainer-core';
import { readCheckpointConfig, readCheckpointSourceConfig, verifyRunCheckpoint } from '../../trainer-core/compute';
import type { Store } from '../store/db';
import { StoreError } from '../store/errors';
import type { CheckpointRecord, RunRecord } from '../store/types';
import { resolveCheckpoint, resolveFinishedCheckpoint } from './checkpoint-refs';
import { modelShapeDifference } from './run-model';
import { assertRunFree } from './run-owner';

/** Whether a checkpoint verifies against its own config, without the resume's overrides. */
export function checkpointFitsItsOwnConfig(folder: string, iteration: number): boolean {
  try {
    verifyRunCheckpoint(folder, checkpointRunConfig(folder, []).cfg, iteration);
    return true;
  } catch {
    return false;
  }
}

/**
 * The checkpoint `ref` names. A run with none yet may be in its warm start: the refusal that
 * helps then is who trains it, not "train it again".
 */
export function checkpointToResume(store: Store, ref: string, fork: boolean): CheckpointRecord {
  try {
    return fork ? resolveFinishedCheckpoint(store, ref, 'fork from') : resolveCheckpoint(store, ref);
  } catch (error) {
    if (!fork && error instanceof StoreError) {
      let runId: number | null = null;
      try {
        runId = store.runs.resolve(ref).id;
      } catch {
        // Not a run: the error above says what it is.
      }
      if (runId !== null) assertRunFree(store, runId, 'resume');
    }
    throw error;
  }
}

/**
 * A resume goes on with the run's seed and algorithm: with another, its stored config (what
 * `--config run:N` and the tables read) would name what only its last iterations trained with,
 * and another estimator adds or drops a critic mid-run. A fork keeps both runs; the fork advised
 * from a checkpoint at or past the config's total raises the total too, or it would be refused next.
 */
export function checkSameRun(cfg: RunConfig, run: RunRecord, checkpoint: CheckpointRecord): void {
  const total = cfg.trainer.total_training_steps <= checkpoint.iteration ? ` --set trainer.total_training_steps=${checkpoint.iteration + 10}` : '';
  const fork = (set: string) => `fork it (turnlab resume ${run.id} --fork --set ${set}${total}), which keeps both`;
  if (cfg.trainer.seed !== run.seed) {
    throw new ConfigError([
      {
        path: ['trainer', 'seed'],
        message: `run ${run.id} (${run.name}) was trained with \`trainer.seed\` ${run.seed}; to go on under seed ${cfg.trainer.seed}, ${fork(`trainer.seed=${cfg.trainer.seed}`)}`,
      },
    ]);
  }
  const algorithm = algorithmOf(cfg);
  if (algorithm !== run.algorithm) {
    const bilevel = cfg.algorithm.bi_level_gae !== (run.algorithm === 'ppo (bi-level gae)');
    const key = bilevel && cfg.algorithm.adv_estimator === 'gae' ? 'bi_level_gae' : 'adv_estimator';
    const value = key === 'bi_level_gae' ? String(cfg.algorithm.bi_level_gae) : cfg.algorithm.adv_estimator;
    throw new ConfigError([
      {
        path: ['algorithm', key],
        message: `run ${run.id} (${run.name}) was trained with ${run.algorithm}; to go on with ${algorithm}, ${fork(`algorithm.${key}=${value}`)}`,
      },
    ]);
  }
}

/**
 * A checkpoint's config with `overrides` applied. Overrides go onto the unresolved source
 * (config.source.yaml) before `${}` references are resolved, so `--set ppo_mini_batch_size=8`
 * also reaches the actor's and critic's copies of it; a checkpoint from before the source was
 * kept falls back to its resolved config.yaml, where references are already values.
 */
export function checkpointRunConfig(folder: string, overrides: readonly string[]): RunConfigWithSource {
  const source = readCheckpointSourceConfig(folder);
  if (source !== null) return parseRunConfigWithSource(parseYaml(source), join(folder, 'config.source.yaml'), overrides);
  return parseRunConfigWithSource(parseYaml(readCheckpointConfig(folder)), join(folder, 'config.yaml'), overrides);
}

/** A continuation must have iterations left to train, or resuming would only delete later ones. */
export function checkContinuable(cfg: RunConfig, checkpoint: CheckpointRecord, folder: string): void {
  // A warm start left to finish is training enough (the learning bench's warm starts train no iteration).
  if (checkpoint.warmStartStep !== null) return;
  const total = cfg.trainer.total_training_steps;
  if (total <= checkpoint.iteration) {
    throw new ConfigError([
      {
        path: ['trainer', 'total_training_steps'],
        message: `\`trainer.total_training_steps\` is ${total}, but checkpoint ${folder} is at iteration ${checkpoint.iteration}: nothing to train; raise it above ${checkpoint.iteration} (e.g. trainer.total_training_steps=${checkpoint.iteration + 10})`,
      },
    ]);
  }
}

/**
 * A resume or fork onto another model folder than the one its checkpoints were trained on (read
 * from the run's stored config, not the checkpoint): refused when its config.json gives another
 * shape or vocabulary, since the adapters' shapes may fit it still and would train on weights they
 * were never fitted to; else allowed (a folder moved, a copy elsewhere) with a note, as the weights
 * under it are the user's to vouch for (a merged export would count the adapters twice).
 */
export function checkModelFolder(parent: RunRecord, cfg: RunConfig, fork: boolean): string | null {
  const trainedOn = (parent.config as { actor_rollout_ref?: { model?: { path?: unknown } } } | null)?.actor_rollout_ref?.model?.path;
  const loads = cfg.actor_rollout_ref.model.path;
  if (typeof trainedOn !== 'string' || loads === null || resolve(trainedOn) === resolve(loads)) return null;
  const difference = modelShapeDifference(trainedOn, loads);
  if (difference !== null) {
    throw new ConfigError([
      {
        path: ['actor_rollout_ref', 'model', 'path'],
        message: `the checkpoint was trained on the model folder ${trainedOn}, and ${loads} holds another model (${difference}); ${fork ? 'fork' : 'resume'} onto the folder it was trained on, or a copy of it`,
      },
    ]);
  }
  return `note: the checkpoint was trained on the model folder ${trainedOn}; this run loads ${loads} under it, which must hold the same weights`;
}

/** The Runs table's algorithm column: the estimator, PPO's named for its advantages. */
export function algorithmOf(cfg: RunConfig): string {
  const a = cfg.algorithm;
  if (a.adv_estimator === 'gae' && a.bi_level_gae) return 'ppo (bi-level gae)';
  if (a.adv_estimator === 'gae') return 'ppo (gae)';
  return a.adv_estimator;
}
