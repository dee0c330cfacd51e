/**
 * A training session: the run's models (TurnLab's own transformer, or a pretrained Hugging Face
 * model), optimizers, environment managers and random streams, fresh or restored from a
 * checkpoint. The trainer's iterations run on it.
 */
import type { TrainOptions } from './train-options';
import { restoreKlController, type KlController } from '../algo/kl-controller';
import type { RunConfig } from '../config/schema';
import { Adam } from '../model/adam';
import type { WordByteTokenizer } from '../model/tokenizer';
import type { FrozenModel, TrainableModel } from '../model/trainable-model';
import type { Transformer } from '../model/transformer';
import type { Tokenizer } from '../rollout/tokenizer';
import { Rng } from '../rng';
import { EnvStateManager } from '../rollout/es-manager';
import { configForTrainStage, trainStageAt } from '../config/train-stages';
import { existingCheckpoints, type RetainedCheckpoint } from './checkpoint-retention';
import { checkpointVocabSize, loadCheckpoint, readCheckpointBase, scratchModelFiles, type CheckpointBase, type LoadedCheckpoint, type OptimizerSnapshot, type TrainingState } from './checkpoint';
import { openPretrainedModels, usesPretrainedModel, verifyPretrainedCheckpoint } from './pretrained-models';
import { createCriticFromPolicy, createModel, expectedModels, fitRunTokenizer, modelRoles } from './models';
import { WarmStartStopped } from './warm-start';
import { supervisedWarmStart, type WarmStartCheckpoint, type WarmStartSaving } from './supervised-warm-start';
import { refuseWarmStartPolicy, warmStartResume, type WarmStartResume } from './warm-start-checkpoint';
import { initialTrainingState } from './initial-state';
import { runExpertIteration } from './expert-iteration';
import type { BackendName } from '../backend';
import type { ModelRole, WorkerModelSpec } from '../workers/protocol';
import { resolveWorkerCount } from '../workers/worker-count';
import { transformerSpec, WorkerPool } from '../workers/worker-pool';
import { modelFolderName } from '../model/hf/load';

export interface Session {
  cfg: RunConfig;
  options: TrainOptions;
  tokenizer: Tokenizer;
  policy: TrainableModel;
  critic: TrainableModel | null;
  reference: FrozenModel | null;
  /** The models as checkpoint files (from-scratch weights and tokenizer, or what a pretrained model trains). */
  modelFiles(): Promise<Record<string, Uint8Array | string>>;
  /** The models as a worker thread builds them (trainer.workers). */
  workerModels(): Promise<Partial<Record<ModelRole, WorkerModelSpec>>>;
  actorOptimizer: Adam;
  criticOptimizer: Adam | null;
  klController: KlController;
  /** The train envs of the curriculum stage `trainStage` (es_manager.train.stages; 0 without one). */
  esTrain: EnvStateManager;
  trainStage: number;
  esVal: EnvStateManager;
  rng: { sampling: Rng; minibatch: Rng; validation: Rng };
  state: TrainingState;
  optimalSuccess: Record<string, number> | null;
  /** This run's checkpoints on disk, those from before a resume included (for keep_last_n). */
  checkpoints: RetainedCheckpoint[];
  /** The context-full warning was given (once per run). */
  contextWarned: boolean;
  /** Worker threads (trainer.workers above 1), holding copies of the models; null on one thread. */
  workers: WorkerPool | null;
  /** This process trained the policy before RL: a new run, or one resumed from a warm-start checkpoint. */
  ranWarmStart: boolean;
  /** The run's warm-start checkpoint (`warm_start.save_freq`), superseded by its first finished one. */
  warmStartCheckpoint: string | null;
  dispose(): void;
}

/** A run's models, however they were made, and what a checkpoint restored besides them. */
interface RunModels {
  tokenizer: Tokenizer;
  policy: TrainableModel;
  critic: TrainableModel | null;
  reference: FrozenModel | null;
  modelFiles(): Promise<Record<string, Uint8Array | string>>;
  workerModels(): Promise<Partial<Record<ModelRole, WorkerModelSpec>>>;
  dispose(): void;
  /** Set when resuming: optimizer moments (the critic's only when the checkpoint had its critic) and counters. */
  restored: { actorOptimizer: OptimizerSnapshot; criticOptimizer: OptimizerSnapshot | null; state: TrainingState } | null;
  /** Whether the policy was trained before RL here, and the warm-start checkpoint it left. */
  warmStart: { ran: boolean; checkpoint: WarmStartCheckpoint | null };
}

export async function openSession(options: TrainOptions, backend: BackendName): Promise<Session> {
  const cfg = options.config;
  const models = usesPretrainedModel(cfg) ? await openPretrainedRun(options) : await openScratchRun(options, backend);
  const { policy, critic } = models;
  const adam = (model: TrainableModel, o: RunConfig['critic']['optim']) =>
    new Adam(model.namedVariables(), { learningRate: o.lr, beta1: o.betas[0], beta2: o.betas[1], weightDecay: o.weight_decay });
  const actorOptimizer = adam(policy, cfg.actor_rollout_ref.actor.optim);
  const criticOptimizer = critic ? adam(critic, cfg.critic.optim) : null;
  const esTrain = trainEnvManager(cfg, 0, options);
  const esVal = new EnvStateManager(cfg, 'val', { resolveSpec: options.resolveSpec });
  let state: TrainingState;
  if (models.restored) {
    actorOptimizer.loadState(models.restored.actorOptimizer.tensors, models.restored.actorOptimizer.step);
    const criticMoments = models.restored.criticOptimizer;
    if (criticOptimizer && criticMoments) criticOptimizer.loadState(criticMoments.tensors, criticMoments.step);
    state = models.restored.state;
    esTrain.restoreState(state.esTrain);
  } else {
    state = initialTrainingState(cfg, esTrain.state());
  }
  const session: Session = {
    cfg,
    options,
    tokenizer: models.tokenizer,
    policy,
    critic,
    reference: models.reference,
    modelFiles: () => models.modelFiles(),
    workerModels: () => models.workerModels(),
    actorOptimizer,
    criticOptimizer,
    klController: restoreKlController(state.klController),
    esTrain,
    trainStage: 0,
    esVal,
    rng: {
      sampling: Rng.fromState(state.rng.sampling),
      minibatch: Rng.fromState(state.rng.minibatch),
      validation: Rng.fromState(state.rng.validation),
    },
    state,
    optimalSuccess: null,
    checkpoints: existingCheckpoints(options.checkpointDir, state.iteration),
    contextWarned: false,
    workers: null,
    ranWarmStart: models.warmStart.ran,
    warmStartCheckpoint: models.warmStart.checkpoint?.dir ?? null,
    dispose() {
      void session.workers?.dispose();
      actorOptimizer.dispose();
      criticOptimizer?.dispose();
      models.dispose();
    },
  };
  return session;
}

function trainEnvManager(cfg: RunConfig, stage: number, options: TrainOptions): EnvStateManager {
  return new EnvStateManager(configForTrainStage(cfg, stage), 'train', { resolveSpec: options.resolveSpec, potentials: cfg.algorithm.turn_shaping !== null });
}

/**
 * Moves the train rollouts to the curriculum stage of `iteration` (es_manager.train.stages) when
 * it is not the one playing: new envs, the seed schedule carried on, so no start state repeats
 * across stages and a resumed run plays what the uninterrupted one would. Says so on the log.
 */
export function enterTrainStage(session: Session, iteration: number): void {
  const stage = trainStageAt(session.cfg, iteration);
  if (stage === session.trainStage) return;
  const es = trainEnvManager(session.cfg, stage, session.options);
  es.restoreState(session.esTrain.state());
  session.esTrain = es;
  session.trainStage = stage;
  const stageCfg = configForTrainStage(session.cfg, stage);
  const { tags, n_groups: groups } = stageCfg.es_manager.train.env_configs;
  const actor = stageCfg.actor_rollout_ref.actor;
  const kl = actor.use_kl_loss && session.cfg.es_manager.train.stages.some((s) => s.kl_loss_coef !== undefined) ? `, KL loss coefficient ${actor.kl_loss_coef}` : '';
  session.options.log?.(`curriculum: at iteration ${iteration} the train rollouts play stage ${stage} (${tags.map((t, i) => `${t} x ${groups[i]}`).join(', ')})${kl}`);
}

/**
 * Starts the worker threads `trainer.workers` asks for, each with a copy of the session's
 * models, once the models are final (after a warm start or a restore). Says how many run.
 */
export async function startWorkers(session: Session, backend: BackendName, log: (line: string) => void): Promise<void> {
  const cfg = session.cfg;
  const { count, note } = resolveWorkerCount(cfg.trainer.workers, { backend });
  if (note) log(note);
  if (count <= 1) return;
  session.workers = await WorkerPool.start(count - 1, backend, await session.workerModels());
  if (usesPretrainedModel(cfg)) {
    // A worker built its pretrained models from the folder: what trains comes from this thread
    // (a resumed checkpoint's adapters, a trained value head).
    await session.workers.syncWeights('policy', session.policy);
    if (session.critic) await session.workers.syncWeights('critic', session.critic);
  }
  log(`workers: ${count} (the main thread and ${count - 1} worker thread${count > 2 ? 's' : ''})`);
}

/** TurnLab's own transformer: fresh, from another run's policy (`model.path`), or resumed. */
async function openScratchRun(options: TrainOptions, backend: BackendName): Promise<RunModels> {
  const cfg = options.config;
  const roles = modelRoles(cfg);
  let tokenizer: WordByteTokenizer;
  let policy: Transformer;
  let critic: Transformer | null;
  let reference: Transformer | null;
  let restored: RunModels['restored'] = null;
  let warm: RunModels['warmStart'] = { ran: false, checkpoint: null };
  const loaded = options.resumeFrom ? loadCheckpoint(options.resumeFrom, expectedModels(cfg, checkpointVocabSize(options.resumeFrom))) : null;
  // A warm-start checkpoint goes on with the warm start, then as a new run does.
  const partial = loaded ? disposingOnError(loaded, () => warmStartResume(options.resumeFrom!, loaded, cfg)) : null;
  if (loaded && !partial) {
    tokenizer = loaded.tokenizer;
    policy = loaded.policy;
    critic = roles.critic ? (loaded.critic ?? createCriticFromPolicy(cfg, policy)) : null;
    if (!roles.critic) loaded.critic?.dispose();
    reference = roles.reference ? (loaded.reference ?? policy.clone()) : null;
    if (!roles.reference) loaded.reference?.dispose();
    restored = { actorOptimizer: loaded.actorOptimizer, criticOptimizer: loaded.critic ? loaded.criticOptimizer : null, state: loaded.state };
  } else {
    if (loaded) {
      loaded.critic?.dispose();
      loaded.reference?.dispose();
      tokenizer = loaded.tokenizer;
      policy = loaded.policy;
    } else if (cfg.model.path) {
      // Start from another run's policy (e.g. a warm-started one): its tokenizer comes along.
      const start = loadCheckpoint(cfg.model.path, { policy: expectedModels(cfg, checkpointVocabSize(cfg.model.path)).policy, critic: null });
      disposingOnError(start, () => refuseWarmStartPolicy(cfg.model.path!, start.state));
      start.critic?.dispose();
      start.reference?.dispose();
      tokenizer = start.tokenizer;
      policy = start.policy;
    } else {
      tokenizer = fitRunTokenizer(cfg, options.resolveSpec);
      policy = createModel(cfg, tokenizer.vocabSize, 'policy');
    }
    const modelFiles = () => scratchModelFiles({ policy, critic: null, reference: null, tokenizer });
    try {
      warm = await runWarmStart(options, policy, tokenizer, { modelFiles, resume: partial }, backend);
    } catch (error) {
      policy.dispose();
      throw error;
    }
    critic = roles.critic ? createCriticFromPolicy(cfg, policy) : null;
    reference = roles.reference ? policy.clone() : null;
  }
  const models = [policy, critic, reference].filter((m): m is Transformer => m !== null);
  return {
    tokenizer,
    policy,
    critic,
    reference,
    modelFiles: () => scratchModelFiles({ policy, critic, reference, tokenizer }),
    async workerModels() {
      const specs: Partial<Record<ModelRole, WorkerModelSpec>> = { policy: await transformerSpec(policy) };
      if (critic) specs.critic = await transformerSpec(critic);
      if (reference) specs.reference = await transformerSpec(reference);
      return specs;
    },
    dispose: () => models.forEach((m) => m.dispose()),
    restored,
    warmStart: warm,
  };
}

/** Runs `check`, freeing the checkpoint's models when it refuses them (they would leak otherwise). */
function disposingOnError<T>(loaded: LoadedCheckpoint, check: () => T): T {
  try {
    return check();
  } catch (error) {
    for (const model of [loaded.policy, loaded.critic, loaded.reference]) model?.dispose();
    throw error;
  }
}

/** A pretrained Hugging Face model (`actor_rollout_ref.model.path`), with LoRA or fully trained. */
async function openPretrainedRun(options: TrainOptions): Promise<RunModels> {
  const cfg = options.config;
  const roles = modelRoles(cfg);
  let restored: RunModels['restored'] = null;
  let resume: { dir: string; base: CheckpointBase } | undefined;
  let partial: WarmStartResume | null = null;
  if (options.resumeFrom) {
    verifyPretrainedCheckpoint(options.resumeFrom, cfg, roles);
    const base = readCheckpointBase(options.resumeFrom);
    resume = { dir: options.resumeFrom, base };
    partial = warmStartResume(options.resumeFrom, base, cfg);
    if (!partial) restored = { actorOptimizer: base.actorOptimizer, criticOptimizer: base.files['critic.safetensors'] ? base.criticOptimizer : null, state: base.state };
  }
  const models = await openPretrainedModels(cfg, roles, resume);
  options.log?.(`model ${modelFolderName(models.folder)}: ${models.policy.parameterSummary()}`);
  let warm: RunModels['warmStart'] = { ran: false, checkpoint: null };
  if (!restored) {
    try {
      warm = await runWarmStart(options, models.policy, models.tokenizer, { modelFiles: () => models.modelFiles({ critic: false }), resume: partial });
    } catch (error) {
      models.dispose();
      throw error;
    }
  }
  return { ...models, workerModels: async () => models.workerSpecs, restored, warmStart: warm };
}

/**
 * What a new run's policy learns before RL: the supervised warm start (`warm_start.mode`), then
 * expert iteration on its own successes (`expert_iteration.rounds`); on the worker threads too
 * when `trainer.workers` asks for them and the policy is TurnLab's own (`backend`).
 */
async function runWarmStart(options: TrainOptions, policy: TrainableModel, tokenizer: Tokenizer, saving: WarmStartSaving, backend?: BackendName): Promise<RunModels['warmStart']> {
  const cfg = options.config;
  if (!hasWarmStart(cfg)) return { ran: false, checkpoint: null };
  const threads = backend ? resolveWorkerCount(cfg.trainer.workers, { backend }).count - 1 : 0;
  const pool = threads > 0 ? await WorkerPool.start(threads, backend as BackendName, { policy: await transformerSpec(policy as Transformer) }) : null;
  const parallel = pool ? { pool, role: 'policy' as const } : undefined;
  try {
    const checkpoint = hasDemonstrations(cfg) ? await supervisedWarmStart(options, policy, tokenizer, parallel, saving) : null;
    if (cfg.expert_iteration.rounds > 0) {
      const { log, shouldStop, resolveSpec, sink } = options;
      const onRound = (round: number, rounds: number, loss: number | null) => sink.warmStartProgress?.(round, rounds, loss, 'expert iteration');
      try {
        await sink.expertIteration?.(await runExpertIteration({ cfg, policy, tokenizer, parallel, log, shouldStop, resolveSpec, onRound }));
      } catch (error) {
        // Stopped in expert iteration: a resume goes on from the supervised warm start's end.
        if (error instanceof WarmStartStopped && checkpoint) throw new WarmStartStopped(error.step, error.steps, error.phase, checkpoint.step);
        throw error;
      }
    }
    return { ran: true, checkpoint };
  } finally {
    pool?.dispose();
  }
}

/** Whether a new run of this config trains its policy before RL: on demonstrations, or on its own solved episodes. */
export function hasWarmStart(cfg: RunConfig): boolean {
  return hasDemonstrations(cfg) || cfg.expert_iteration.rounds > 0;
}

/** A warm start that trains on demonstrations (a solver's or random valid replies), not expert iteration alone. */
export function hasDemonstrations(cfg: RunConfig): boolean {
  return cfg.warm_start.mode !== 'none' && cfg.warm_start.steps > 0;
}
