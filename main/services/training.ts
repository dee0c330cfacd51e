import { existsSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loadRunConfigWithSource, parseRunConfigWithSource, type RunConfigWithSource } from '../../trainer-core/config';
import type { RunConfig } from '../../trainer-core/config/schema';
import { loadEnvSpecResolver } from '../../trainer-core/rollout/env-specs';
import { checkpointVocabSize, readCheckpointConfig, readCheckpointSourceConfig, verifyCheckpoint } from '../../trainer-core/train/checkpoint';
import type { EpisodeReport, TrainingSink } from '../../trainer-core/train/sink';
import { expectedModels, train, type TrainResult } from '../../trainer-core/train/trainer';
import { checkpointsDir } from '../paths';
import type { Store } from '../store/db';
import { StoreError } from '../store/errors';
import type { CheckpointRecord, RunRecord } from '../store/types';
import { StoreSink } from '../trainer-host/store-sink';

/**
 * Starting, resuming and forking runs: the same code serves the CLI and the desktop app.
 * A run's checkpoints live in `<data>/checkpoints/run-<id>/iter-<n>`.
 */

export interface TrainingHooks {
  log?: (line: string) => void;
  /** After each stored iteration (for progress bars and live views). */
  onIteration?: (iteration: number, total: number, metrics: Record<string, number>) => void;
  /** Polled after each iteration; true ends the run after a checkpoint (status `stopped`). */
  shouldStop?: () => boolean;
  /** Called as soon as the run row exists. */
  onRunCreated?: (run: RunRecord) => void;
}

export interface TrainingOutcome {
  run: RunRecord;
  result: TrainResult;
}

export function runCheckpointDir(store: Store, runId: number): string {
  return join(checkpointsDir(store.dataDir), `run-${runId}`);
}

export async function trainFromConfigFile(
  store: Store,
  configPath: string,
  options: { overrides?: string[]; name?: string } & TrainingHooks = {},
): Promise<TrainingOutcome> {
  const { cfg, sourceYaml } = loadRunConfigWithSource(configPath, options.overrides ?? []);
  const run = store.runs.create({
    name: options.name ?? cfg.trainer.experiment_name,
    config: cfg,
    seed: cfg.trainer.seed,
    envTags: envTagsOf(cfg),
    algorithm: algorithmOf(cfg),
    status: 'queued',
  });
  options.onRunCreated?.(run);
  return runTraining(store, run, { cfg, sourceYaml }, dirname(resolve(configPath)), undefined, options);
}

/**
 * Continues from a checkpoint. `ref` names a run (its latest checkpoint), a checkpoint id as
 * `ckpt:<id>`, or a checkpoint folder. Without `fork` the same run continues: everything it
 * recorded after the checkpoint's iteration is removed first, so no iteration appears twice.
 * With `fork` a child run starts from the checkpoint with the overrides applied.
 */
export async function resumeFromCheckpoint(
  store: Store,
  ref: string,
  options: { fork?: boolean; overrides?: string[]; name?: string } & TrainingHooks = {},
): Promise<TrainingOutcome> {
  const checkpoint = resolveCheckpoint(store, ref);
  const folder = resolve(store.dataDir, checkpoint.path);
  const parent = store.runs.get(checkpoint.runId);
  if (!parent) throw new StoreError('RUN_NOT_FOUND', `checkpoint ${checkpoint.id} belongs to a deleted run`);
  const { cfg, sourceYaml } = checkpointRunConfig(folder, options.overrides ?? []);
  // Refuse a damaged or mismatched checkpoint before anything stored is changed.
  verifyCheckpoint(folder, expectedModels(cfg, checkpointVocabSize(folder)));
  let run: RunRecord;
  if (options.fork) {
    run = store.runs.create({
      name: options.name ?? `${parent.name}-fork`,
      config: cfg,
      seed: cfg.trainer.seed,
      envTags: envTagsOf(cfg),
      algorithm: algorithmOf(cfg),
      status: 'queued',
      parentRunId: parent.id,
      parentCheckpointId: checkpoint.id,
      parentIteration: checkpoint.iteration,
    });
  } else {
    const later = store.checkpoints.listByRun(parent.id).filter((c) => c.iteration > checkpoint.iteration);
    store.runs.truncateAfter(parent.id, checkpoint.iteration);
    for (const c of later) rmSync(resolve(store.dataDir, c.path), { recursive: true, force: true });
    run = store.runs.update(parent.id, { status: 'queued', finishedAt: null, error: null });
  }
  options.onRunCreated?.(run);
  return runTraining(store, run, { cfg, sourceYaml }, process.cwd(), { folder, fork: options.fork === true }, options);
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

/** A checkpoint named by run, `ckpt:<id>`, or folder path. */
export function resolveCheckpoint(store: Store, ref: string): CheckpointRecord {
  const idMatch = /^ckpt:(\d+)$/.exec(ref.trim());
  if (idMatch) {
    const found = store.checkpoints.get(Number(idMatch[1]));
    if (!found) throw new StoreError('RUN_NOT_FOUND', `unknown checkpoint '${ref}' (see 'turnlab show <run>')`);
    return found;
  }
  const asPath = resolve(ref);
  if ((ref.includes('/') || ref.includes('\\')) && existsSync(asPath)) {
    const rel = isAbsolute(ref) || existsSync(asPath) ? relative(store.dataDir, asPath) : ref;
    for (const runId of store.runs.allIds()) {
      const match = store.checkpoints.listByRun(runId).find((c) => c.path === rel);
      if (match) return match;
    }
    throw new StoreError('RUN_NOT_FOUND', `folder ${ref} is not a checkpoint of this data folder (${store.dataDir})`);
  }
  const run = store.runs.resolve(ref);
  const latest = store.checkpoints.latest(run.id);
  if (!latest) throw new StoreError('RUN_NOT_FOUND', `run ${run.id} (${run.name}) has no checkpoint to resume from`);
  return latest;
}

async function runTraining(
  store: Store,
  run: RunRecord,
  { cfg, sourceYaml }: RunConfigWithSource,
  baseDir: string,
  resumeFrom: { folder: string; fork: boolean } | undefined,
  hooks: TrainingHooks,
): Promise<TrainingOutcome> {
  const resolveSpec = await loadEnvSpecResolver(cfg, ['train', 'val'], baseDir);
  const storeSink = new StoreSink(store, run.id);
  const total = cfg.trainer.total_training_steps;
  const sink: TrainingSink = {
    runStarted: (info) => storeSink.runStarted(info),
    iteration: (iteration: number, metrics: Record<string, number>, episodes: EpisodeReport[]) => {
      storeSink.iteration(iteration, metrics, episodes);
      hooks.onIteration?.(iteration, total, metrics);
    },
    checkpoint: (report) => storeSink.checkpoint(report),
    checkpointsRemoved: (paths) => storeSink.checkpointsRemoved(paths),
    runEnded: (status, error) => storeSink.runEnded(status, error),
  };
  const result = await train({
    config: cfg,
    sink,
    checkpointDir: runCheckpointDir(store, run.id),
    resumeFrom: resumeFrom?.folder,
    fork: resumeFrom?.fork,
    configSource: sourceYaml,
    shouldStop: hooks.shouldStop,
    log: hooks.log,
    resolveSpec,
  });
  return { run: store.runs.get(run.id) as RunRecord, result };
}

function envTagsOf(cfg: RunConfig): string[] {
  return [...new Set([...cfg.es_manager.train.env_configs.tags, ...cfg.es_manager.val.env_configs.tags])];
}

function algorithmOf(cfg: RunConfig): string {
  const a = cfg.algorithm;
  if (a.adv_estimator === 'gae' && a.bi_level_gae) return 'ppo (bi-level gae)';
  if (a.adv_estimator === 'gae') return 'ppo (gae)';
  return a.adv_estimator;
}
