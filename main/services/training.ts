import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { trainStageTags, loadRunConfigWithSource, type RunConfigWithSource, type RunConfig, sourceWithAbsoluteModulePaths, withAbsoluteModulePaths, type EpisodeReport, type TrainingSink, type TrainResult } from '../../trainer-core';
import { scheduleTotalNote, verifyRunCheckpoint, train } from '../../trainer-core/compute';
import { checkpointsDir, tensorBoardDir } from '../paths';
import type { Store } from '../store/db';
import { describeWriteError, StoreError } from '../store/errors';
import type { RunRecord } from '../store/types';
import { StoreSink } from '../trainer-host/store-sink';
import { runFolder } from './tensorboard-folders';
import { shellQuote } from '../shell-quote';
import { TensorBoardLog } from './tfevents';
import { prepareRun, type PreparedRun } from './prepare-run';
import { runLogger } from './run-log';
import { computeChangeNote, type ComputeUsed } from './compute-change-note';
import { codeVersionLine } from './code-version';
import { checkNewRunLabels, normaliseTags } from '../../preload/run-labels';
import { assertRunFree, claimRun, takeRun } from './run-owner';
import { algorithmOf, checkContinuable, checkModelFolder, checkpointFitsItsOwnConfig, checkpointRunConfig, checkpointToResume, checkSameRun } from './resume-checks';

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
  options: { overrides?: string[]; name?: string; tags?: string[] } & TrainingHooks = {},
): Promise<TrainingOutcome> {
  const baseDir = dirname(resolve(configPath));
  const logger = runLogger(store, options.log);
  const loaded = loadRunConfigWithSource(configPath, options.overrides ?? []);
  const cfg = withAbsoluteModulePaths(loaded.cfg, baseDir);
  const name = options.name ?? cfg.trainer.experiment_name;
  checkNewRunLabels(name, options.tags ?? [], options.name === undefined ? 'trainer.experiment_name' : '--name');
  // The source keeps module paths absolute too, so a resume or fork finds them from any folder.
  const sourceYaml = sourceWithAbsoluteModulePaths(loaded.sourceYaml, baseDir);
  // Envs and backend load before the run row exists: a broken module leaves no ghost run.
  const prepared = await prepareRun(cfg, baseDir, { log: logger.log });
  const run = store.runs.create({
    name: name.trim(),
    config: cfg,
    seed: cfg.trainer.seed,
    envTags: envTagsOf(cfg),
    algorithm: algorithmOf(cfg),
    status: 'queued',
    tags: options.tags && normaliseTags(options.tags),
  });
  logger.attach(run.id);
  options.onRunCreated?.(run);
  return runTraining(store, run, { cfg, sourceYaml }, prepared, undefined, { ...options, log: logger.log });
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
  options: { fork?: boolean; overrides?: string[]; name?: string; tags?: string[] } & TrainingHooks = {},
): Promise<TrainingOutcome> {
  if (options.fork) checkNewRunLabels(options.name, options.tags ?? [], '--name');
  const checkpoint = checkpointToResume(store, ref, options.fork === true);
  const folder = resolve(store.dataDir, checkpoint.path);
  const parent = store.runs.get(checkpoint.runId);
  if (!parent) throw new StoreError('RUN_NOT_FOUND', `checkpoint ${checkpoint.id} belongs to a deleted run`);
  if (!options.fork) assertRunFree(store, parent.id, 'resume');
  // Refuse a damaged or mismatched checkpoint, a config it cannot continue under, a broken env
  // module or a backend that cannot start, all before anything stored is changed.
  let loaded: ReturnType<typeof checkpointRunConfig>;
  try {
    loaded = checkpointRunConfig(folder, options.overrides ?? []);
    verifyRunCheckpoint(folder, loaded.cfg, checkpoint.iteration);
  } catch (error) {
    // A damaged checkpoint need not be the end of the run: say which earlier one to continue from.
    const earlier = store.checkpoints.listByRun(parent.id).filter((c) => c.iteration < checkpoint.iteration).at(-1);
    if (!(error instanceof Error) || error.name !== 'CheckpointError') throw error;
    // A change the overrides make (model.n_layer=3) that the checkpoint cannot take is the
    // overrides' fault, which the message names: going back a checkpoint would delete iterations for nothing.
    if (!earlier || (options.overrides?.length && checkpointFitsItsOwnConfig(folder, checkpoint.iteration))) throw error;
    error.message += `; the run's checkpoint before it, at iteration ${earlier.iteration}, may be sound: turnlab resume ckpt:${earlier.id} --discard-later (or --fork) continues from there`;
    throw error;
  }
  const { cfg, sourceYaml } = loaded;
  // Another seed or estimator first: the fork it advises is what to do, whatever the total.
  if (!options.fork) checkSameRun(cfg, parent, checkpoint);
  checkContinuable(cfg, checkpoint, folder);
  const logger = runLogger(store, options.log);
  const folderNote = checkModelFolder(parent, cfg, options.fork === true);
  if (folderNote !== null) logger.log(folderNote);
  const prepared = await prepareRun(cfg, process.cwd(), { log: logger.log, resuming: true });
  let run: RunRecord;
  let lastBefore: number | null = null;
  if (options.fork) {
    run = store.runs.create({
      name: options.name?.trim() ?? `${parent.name}-fork`,
      config: cfg,
      seed: cfg.trainer.seed,
      envTags: envTagsOf(cfg),
      algorithm: algorithmOf(cfg),
      status: 'queued',
      parentRunId: parent.id,
      parentCheckpointId: checkpoint.id,
      parentIteration: checkpoint.iteration,
      tags: options.tags,
    });
  } else {
    // Taken before anything is deleted: a run a live process trains is refused, naming it.
    takeRun(store, parent.id, 'resume');
    lastBefore = store.runs.summary(parent.id)?.iterations ?? null;
    const later = store.checkpoints.listByRun(parent.id).filter((c) => c.iteration > checkpoint.iteration);
    store.runs.truncateAfter(parent.id, checkpoint.warmStartStep !== null ? 'warm start' : checkpoint.iteration);
    for (const c of later) rmSync(resolve(store.dataDir, c.path), { recursive: true, force: true });
    // The run now trains under this config (a larger total, changed settings): the stored one
    // must say so, or the run's plan would read "iteration 40 / 30".
    run = store.runs.update(parent.id, { status: 'queued', finishedAt: null, error: null, config: cfg });
  }
  logger.attach(run.id);
  options.onRunCreated?.(run);
  // Said and kept in the run's log: where it went on from, what it trains again, and under which
  // changes (its stored config is the newest; the log is the history of its resumes).
  const at = checkpoint.warmStartStep !== null ? `the warm start's step ${checkpoint.warmStartStep} of ${cfg.warm_start.steps}` : `iteration ${checkpoint.iteration}`;
  const from = options.fork ? `forked from run ${parent.id} (${parent.name}) at ckpt:${checkpoint.id}, ${at}` : `resuming from ckpt:${checkpoint.id}, ${at}`;
  const again = lastBefore !== null && lastBefore > checkpoint.iteration ? `; iterations ${checkpoint.iteration + 1}-${lastBefore} recorded after it are trained again` : '';
  const changes = options.overrides?.length ? `; with ${options.overrides.join(' ')}` : '';
  logger.log(`${from}${again}${changes}`);
  const scheduleNote = scheduleTotalNote(cfg, checkpointRunConfig(folder, []).cfg.trainer.total_training_steps, checkpoint.iteration);
  if (scheduleNote !== null) logger.log(`note: ${scheduleNote}`);
  const workersBefore = store.metrics.series(parent.id, 'perf/workers').filter((p) => p.iteration <= checkpoint.iteration).at(-1)?.value ?? null;
  const before = { backend: parent.backend ?? null, workers: workersBefore, iteration: checkpoint.iteration };
  return runTraining(store, run, { cfg, sourceYaml }, prepared, { folder, fork: options.fork === true, before }, { ...options, log: logger.log });
}

async function runTraining(
  store: Store,
  run: RunRecord,
  { cfg, sourceYaml }: RunConfigWithSource,
  prepared: PreparedRun,
  resumeFrom: { folder: string; fork: boolean; before: ComputeUsed & { iteration: number } } | undefined,
  hooks: TrainingHooks,
): Promise<TrainingOutcome> {
  // This process owns the run until it ends (run-owner.ts); a resume took it already.
  const lease = claimRun(store, run.id, 'train');
  const tensorBoard = tensorBoardLog(store, run, cfg, hooks.log);
  const storeSink = new StoreSink(store, run.id, hooks.log, undefined, tensorBoard ? (points) => tensorBoard.append(points) : undefined);
  const total = cfg.trainer.total_training_steps;
  // A full disk or an unwritable database fails the run with a message naming the file.
  const write = async <T>(fn: () => T | Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw describeWriteError(error, store.file);
    }
  };
  // Not printed: the terminal knows what it ran; the run's log keeps it for whoever reads it
  // later. A store that cannot take it (a full disk) fails the run at its first write, below.
  try {
    store.logs.append(run.id, [codeVersionLine()]);
  } catch {
    // See above.
  }
  // Known once the first iteration reports its worker count.
  let backendNow: string | null = null;
  let computeChecked = resumeFrom === undefined;
  const sink: TrainingSink = {
    backendSelected: (info) => {
      backendNow = info.backend;
      return write(() => storeSink.backendSelected(info));
    },
    runStarted: async (info) => {
      await write(() => storeSink.runStarted(info));
      tensorBoard?.started(info.startIteration);
    },
    iteration: async (iteration: number, metrics: Record<string, number>, episodes: EpisodeReport[]) => {
      if (!computeChecked && resumeFrom && backendNow !== null && 'perf/workers' in metrics) {
        computeChecked = true;
        const note = computeChangeNote(resumeFrom.before, { backend: backendNow, workers: metrics['perf/workers'] }, resumeFrom.before.iteration);
        if (note !== null) hooks.log?.(note);
      }
      await write(() => storeSink.iteration(iteration, metrics, episodes));
      lease.beat();
      hooks.onIteration?.(iteration, total, metrics);
    },
    checkpoint: (report) => write(() => storeSink.checkpoint(report)),
    checkpointsRemoved: (paths) => write(() => storeSink.checkpointsRemoved(paths)),
    warmStartLoss: (losses) => write(() => storeSink.warmStartLoss(losses)),
    warmStartProgress: (step, steps, loss, phase) => write(() => storeSink.warmStartProgress(step, steps, loss, phase)),
    expertIteration: (rounds) => write(() => storeSink.expertIteration(rounds)),
    runEnded: (status, error) => write(() => storeSink.runEnded(status, error)),
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
    resumeCommand: `turnlab resume ${run.id}`,
    resolveSpec: prepared.resolveSpec,
    backend: prepared.backend,
  }).finally(() => {
    tensorBoard?.close();
    lease.release();
  });
  return { run: store.runs.get(run.id) as RunRecord, result };
}

/**
 * With `trainer.logger: [tensorboard]`, the run's metrics also go to TensorBoard's event files as
 * they are stored: under $TENSORBOARD_DIR (verl's variable) or the data folder's `tensorboard`,
 * in a folder of the run's own.
 */
function tensorBoardLog(store: Store, run: RunRecord, cfg: RunConfig, log?: (line: string) => void): TensorBoardLog | null {
  if (!cfg.trainer.logger.includes('tensorboard')) return null;
  const root = process.env.TENSORBOARD_DIR || tensorBoardDir(store.dataDir);
  const folder = runFolder(root, run.id, run.name);
  log?.(`tensorboard: the metrics also go to ${folder} (tensorboard --logdir ${shellQuote(root)})`);
  return new TensorBoardLog(folder, log);
}

function envTagsOf(cfg: RunConfig): string[] {
  return [...new Set([...trainStageTags(cfg), ...cfg.es_manager.val.env_configs.tags])];
}
