/**
 * A training session: the run's models (TurnLab's own transformer, or a pretrained Hugging Face
 * model), optimizers, environment managers and random streams, fresh or restored from a
 * checkpoint. The trainer's iterations run on it.
 */
import type { TrainOptions } from './train-options';
import { createKlController, restoreKlController, type KlController } from '../algo/kl-controller';
import type { RunConfig } from '../config/schema';
import { Adam } from '../model/adam';
import type { WordByteTokenizer } from '../model/tokenizer';
import type { FrozenModel, TrainableModel } from '../model/trainable-model';
import type { Transformer } from '../model/transformer';
import type { Tokenizer } from '../rollout/tokenizer';
import { deriveSeed, Rng } from '../rng';
import { EnvStateManager } from '../rollout/es-manager';
import { configForTrainStage, trainStageAt } from '../config/train-stages';
import { createContextManager } from '../rollout/rollout-loop';
import { existingCheckpoints, type RetainedCheckpoint } from './checkpoint-retention';
import { checkpointVocabSize, loadCheckpoint, readCheckpointBase, scratchModelFiles, type CheckpointBase, type OptimizerSnapshot, type TrainingState } from './checkpoint';
import { openPretrainedModels, usesPretrainedModel, verifyPretrainedCheckpoint } from './pretrained-models';
import { collectDemonstrations, longReplyNote, unsolvedDemonstrationsNote } from './demonstrations';
import { createCriticFromPolicy, createModel, expectedModels, fitRunTokenizer, modelRoles } from './models';
import { warmStart, WarmStartStopped } from './warm-start';
import { playRelabelledEpisodes } from './dagger';
import { runExpertIteration } from './expert-iteration';
import type { Parallel } from './micro-batch-runner';
import { PolicyGenerator } from '../model/policy-generator';
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
}

export async function openSession(options: TrainOptions, backend: BackendName): Promise<Session> {
  const cfg = options.config;
  const seed = cfg.trainer.seed;
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
    const kl = cfg.algorithm.kl_ctrl;
    state = {
      iteration: 0,
      rng: {
        sampling: new Rng(deriveSeed(seed, 'sampling')).state(),
        minibatch: new Rng(deriveSeed(seed, 'minibatch')).state(),
        validation: new Rng(deriveSeed(seed, 'validation')).state(),
      },
      esTrain: esTrain.state(),
      klController: createKlController({ type: kl.type, klCoef: kl.kl_coef, targetKl: kl.target_kl, horizon: kl.horizon }).state(),
      totalTokens: 0,
      totalEpisodes: 0,
      totalEnvSteps: 0,
    };
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
  if (options.resumeFrom) {
    const loaded = loadCheckpoint(options.resumeFrom, expectedModels(cfg, checkpointVocabSize(options.resumeFrom)));
    tokenizer = loaded.tokenizer;
    policy = loaded.policy;
    critic = roles.critic ? (loaded.critic ?? createCriticFromPolicy(cfg, policy)) : null;
    if (!roles.critic) loaded.critic?.dispose();
    reference = roles.reference ? (loaded.reference ?? policy.clone()) : null;
    if (!roles.reference) loaded.reference?.dispose();
    restored = { actorOptimizer: loaded.actorOptimizer, criticOptimizer: loaded.critic ? loaded.criticOptimizer : null, state: loaded.state };
  } else {
    if (cfg.model.path) {
      // Start from another run's policy (e.g. a warm-started one): its tokenizer comes along.
      const start = loadCheckpoint(cfg.model.path, { policy: expectedModels(cfg, checkpointVocabSize(cfg.model.path)).policy, critic: null });
      start.critic?.dispose();
      start.reference?.dispose();
      tokenizer = start.tokenizer;
      policy = start.policy;
    } else {
      tokenizer = fitRunTokenizer(cfg, options.resolveSpec);
      policy = createModel(cfg, tokenizer.vocabSize, 'policy');
    }
    try {
      await runWarmStart(options, policy, tokenizer, backend);
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
  };
}

/** A pretrained Hugging Face model (`actor_rollout_ref.model.path`), with LoRA or fully trained. */
async function openPretrainedRun(options: TrainOptions): Promise<RunModels> {
  const cfg = options.config;
  const roles = modelRoles(cfg);
  let restored: RunModels['restored'] = null;
  let resume: { dir: string; base: CheckpointBase } | undefined;
  if (options.resumeFrom) {
    verifyPretrainedCheckpoint(options.resumeFrom, cfg, roles);
    const base = readCheckpointBase(options.resumeFrom);
    resume = { dir: options.resumeFrom, base };
    restored = { actorOptimizer: base.actorOptimizer, criticOptimizer: base.files['critic.safetensors'] ? base.criticOptimizer : null, state: base.state };
  }
  const models = await openPretrainedModels(cfg, roles, resume);
  options.log?.(`model ${modelFolderName(models.folder)}: ${models.policy.parameterSummary()}`);
  if (!resume) {
    try {
      await runWarmStart(options, models.policy, models.tokenizer);
    } catch (error) {
      models.dispose();
      throw error;
    }
  }
  return { ...models, workerModels: async () => models.workerSpecs, restored };
}

/**
 * What a new run's policy learns before RL: the supervised warm start (`warm_start.mode`), then
 * expert iteration on its own successes (`expert_iteration.rounds`); on the worker threads too
 * when `trainer.workers` asks for them and the policy is TurnLab's own (`backend`).
 */
async function runWarmStart(options: TrainOptions, policy: TrainableModel, tokenizer: Tokenizer, backend?: BackendName): Promise<void> {
  const cfg = options.config;
  if (!hasWarmStart(cfg)) return;
  const threads = backend ? resolveWorkerCount(cfg.trainer.workers, { backend }).count - 1 : 0;
  const pool = threads > 0 ? await WorkerPool.start(threads, backend as BackendName, { policy: await transformerSpec(policy as Transformer) }) : null;
  const parallel = pool ? { pool, role: 'policy' as const } : undefined;
  try {
    if (hasDemonstrations(cfg)) await supervisedWarmStart(options, policy, tokenizer, parallel);
    if (cfg.expert_iteration.rounds > 0) {
      const { log, shouldStop, resolveSpec, sink } = options;
      const onRound = (round: number, rounds: number, loss: number | null) => sink.warmStartProgress?.(round, rounds, loss, 'expert iteration');
      await sink.expertIteration?.(await runExpertIteration({ cfg, policy, tokenizer, parallel, log, shouldStop, resolveSpec, onRound }));
    }
  } finally {
    pool?.dispose();
  }
}

async function supervisedWarmStart(options: TrainOptions, policy: TrainableModel, tokenizer: Tokenizer, parallel: Parallel | undefined): Promise<void> {
  const cfg = options.config;
  const seed = cfg.trainer.seed;
  const demonstrations = collectDemonstrations({
    cfg,
    cm: createContextManager(cfg, tokenizer),
    tokenizer,
    rng: new Rng(deriveSeed(seed, 'demonstrations')),
    resolveSpec: options.resolveSpec,
  });
  for (const note of [longReplyNote(demonstrations, cfg.actor_rollout_ref.rollout.response_length), unsolvedDemonstrationsNote(demonstrations, cfg.warm_start.mode)]) {
    if (note) options.log?.(note);
  }
  const relabel = cfg.warm_start.dagger_rounds > 0 ? daggerRounds(options, policy, tokenizer) : undefined;
  const steps = cfg.warm_start.steps;
  // A long warm start says how far it is, about ten times, so a terminal is never silent for
  // minutes, and a hundred times to the sink, so the workbench's progress bar moves.
  const every = Math.max(1, Math.round(steps / 10));
  const reportEvery = Math.max(1, Math.round(steps / 100));
  const losses: number[] = [];
  await options.sink.warmStartProgress?.(0, steps, null, 'warm start');
  const result = await warmStart({
    onStep: async (step, loss) => {
      losses[step - 1] = loss;
      if (step % every === 0 && step < steps) options.log?.(`warm start: step ${step}/${steps}, loss ${loss.toFixed(4)}`);
      if (step % reportEvery === 0 || step === steps) await options.sink.warmStartProgress?.(step, steps, loss, 'warm start');
    },
    parallel,
    policy,
    demonstrations,
    steps: cfg.warm_start.steps,
    lr: cfg.warm_start.lr,
    schedule: { type: cfg.warm_start.lr_scheduler_type, minLrRatio: cfg.warm_start.min_lr_ratio },
    batchSize: warmStartBatchSize(cfg),
    gradClip: cfg.actor_rollout_ref.actor.grad_clip,
    rng: new Rng(deriveSeed(seed, 'warm-start')),
    shouldStop: options.shouldStop,
    relabel,
    log: options.log,
  });
  if (result.stoppedAfter !== undefined) throw new WarmStartStopped(result.stoppedAfter, steps);
  options.log?.(`warm start (${cfg.warm_start.mode}): ${cfg.warm_start.steps} steps on ${demonstrations.length} demonstrations, final loss ${result.finalLoss.toFixed(4)}`);
  await options.sink.warmStartLoss?.(losses);
}

/** Whether a new run of this config trains its policy before RL: on demonstrations, or on its own solved episodes. */
export function hasWarmStart(cfg: RunConfig): boolean {
  return hasDemonstrations(cfg) || cfg.expert_iteration.rounds > 0;
}

/** A warm start that trains on demonstrations (a solver's or random valid replies), not expert iteration alone. */
export function hasDemonstrations(cfg: RunConfig): boolean {
  return cfg.warm_start.mode !== 'none' && cfg.warm_start.steps > 0;
}

/**
 * Demonstrations per warm-start step. By default one PPO micro-batch, a size known to fit the
 * backend's memory; a config whose replies are long lowers the micro-batch for PPO (whose rows are
 * whole episodes) and keeps the warm start's batch with warm_start.batch_size.
 */
export function warmStartBatchSize(cfg: RunConfig): number {
  return cfg.warm_start.batch_size ?? cfg.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu;
}

/** Reset count of the DAgger rooms' seed schedule: past the demonstrations' (a million) and any training run's. */
const DAGGER_RESETS = 2_000_000;

/** The warm start's DAgger rounds (`warm_start.dagger_rounds`): the policy as it is at each round plays new rooms. */
function daggerRounds(options: TrainOptions, policy: TrainableModel, tokenizer: Tokenizer) {
  const cfg = options.config;
  const { dagger_rounds: rounds, dagger_episodes: episodes } = cfg.warm_start;
  const rng = new Rng(deriveSeed(cfg.trainer.seed, 'dagger'));
  const cm = createContextManager(cfg, tokenizer);
  return {
    rounds,
    play: async (round: number) => {
      const demonstrations = await playRelabelledEpisodes({
        cfg,
        cm,
        tokenizer,
        // No prefix reuse: each prompt carries the solver's earlier replies, not what the policy wrote.
        generator: new PolicyGenerator(policy, rng, tokenizer.padId, { prefixReuse: false }),
        firstReset: DAGGER_RESETS,
        round,
        episodes,
        rng,
        resolveSpec: options.resolveSpec,
      });
      const boards = demonstrations.reduce((sum, d) => sum + (d.sequence.documentIds.at(-1) ?? -1) + 1, 0);
      options.log?.(`warm start: DAgger round ${round}/${rounds}, the policy played ${demonstrations.length} new rooms, ${boards} boards labelled by the solver`);
      return demonstrations;
    },
  };
}
