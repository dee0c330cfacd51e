import { join } from 'node:path';
import { rmSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { computeAdvantages } from '../algo/estimator-registry';
import { centerAdvantagesByToken } from '../algo/token-centering';
import { applyKlPenalty, type KlType } from '../algo/kl';
import { maskedMean } from '../algo/whiten';
import { dataMetrics } from './data-metrics';
import { returnsToGo } from '../algo/returns-to-go';
import { selectBackend } from '../backend';
import { ConfigError } from '../config/errors';
import { resolvedConfigToYaml } from '../config/load';
import { configForTrainStage } from '../config/train-stages';
import { deriveSeed, Rng } from '../rng';
import { filterGroupsByRewardStd, groupScores } from '../rollout/rollout-filter';
import { createContextManager, rolloutSettingsFromConfig, runRollout, type EpisodeRecord } from '../rollout/rollout-loop';
import { buildTrainingBatch, type TrainingBatch } from './batch';
import { checkpointsToPrune, meanValSuccess } from './checkpoint-retention';
import { saveCheckpoint } from './checkpoint';
import { WarmStartStopped } from './warm-start';
import { PolicyGenerator } from '../model/policy-generator';
import { phase } from '../model/phase-profile';
import { startIterationClock } from './iteration-clock';
import { releasePooledDeviceMemory } from '../model/backend-memory';
import { scoreBatch, updateActor, updateCritic } from './ppo-update';
import { actorUpdateSettings, criticUpdateSettings } from './update-settings';
import { stageUsesReference } from './models';
import type { EpisodeReport, RunEndStatus } from './sink';
import { optimalSuccessByTag } from './validation';
import { scheduledLearningRate } from './run-schedule';
import { enterTrainStage, openSession, startWorkers, type Session } from './session';
import { removeWarmStartFolders } from './warm-start-checkpoint';
import type { TrainOptions, TrainResult } from './train-options';

export type { TrainOptions, TrainResult };
import { ShardedGenerator } from '../workers/sharded-generator';
import type { ModelRole } from '../workers/protocol';
import type { Parallel } from './ppo-update';
import { episodeReport } from './episode-report';
import { contextLimitText } from './first-prompt-fit';
import { COLLAPSE_METRIC, WELL_FORMED_METRIC, collapseWarning, initialCollapseState, stepCollapse, wellFormedShare } from './collapse';

/** A non-finite value in one of these means the weights themselves are NaN or infinite from then on. */
const DIVERGENCE_METRICS = ['actor/grad_norm', 'actor/pg_loss', 'actor/entropy'] as const;



export async function train(options: TrainOptions): Promise<TrainResult> {
  const { config: cfg, sink } = options;
  const log = options.log ?? (() => {});
  const backend = options.backend ?? (await selectBackend(cfg.trainer.backend, log));
  let lastIteration = 0;
  let session: Session | null = null;
  let failed = false;
  try {
    await sink.backendSelected?.({ backend: backend.name, device: backend.device });
    session = await openSession(options, backend.name);
    await startWorkers(session, backend.name, log);
    lastIteration = session.state.iteration;
    await sink.runStarted({
      backend: backend.name,
      device: backend.device,
      backendNotes: backend.reasons,
      parameterCount: session.policy.parameterCount(),
      startIteration: session.state.iteration + 1,
      totalIterations: cfg.trainer.total_training_steps,
    });
    // A new run validates before its first update, and so does a fork, at the iteration it
    // starts from; a resumed run already has its rows up to there.
    const starting = session.state.iteration === 0 || options.fork === true;
    let startMetrics: Record<string, number> = {};
    if (starting && cfg.trainer.val_before_train && cfg.trainer.test_freq > 0) {
      const start = session.state.iteration;
      const val = await validate(session, start);
      startMetrics = val.metrics;
      await sink.iteration(start, val.metrics, val.episodes);
    }
    // The warm start's policy is a result of its own (RAGEN's SFT baseline): kept as iter-0 so
    // `turnlab eval` measures it on held-out seeds and other RL settings can start from it.
    if (session.ranWarmStart && cfg.warm_start.save_checkpoint) await checkpoint(session, startMetrics);
    let status: RunEndStatus = 'completed';
    // The detector's memory travels in the checkpoint: a resumed run still knows the level it had
    // reached, so its rollout/collapse is the uninterrupted run's (older checkpoints start afresh).
    let collapse = session.state.collapse ?? initialCollapseState();
    let diverged = false;
    for (let iteration = session.state.iteration + 1; iteration <= cfg.trainer.total_training_steps; iteration++) {
      enterTrainStage(session, iteration);
      const { metrics, episodes } = await runIteration(session, iteration);
      const broken = diverged ? undefined : DIVERGENCE_METRICS.find((name) => name in metrics && !Number.isFinite(metrics[name]));
      if (broken !== undefined) {
        // Said once: every later figure is NaN too, and the run goes on only so its checkpoints stay where they were.
        diverged = true;
        log(
          `warning: iteration ${iteration}: ${broken} is ${metrics[broken]}: the update diverged and the policy's weights are no longer numbers; ` +
            `lower actor_rollout_ref.actor.optim.lr (now ${cfg.actor_rollout_ref.actor.optim.lr}) and resume from a checkpoint before iteration ${iteration} (turnlab show lists them; resume ckpt:<id> --discard-later)`,
        );
      }
      const share = wellFormedShare(metrics);
      if (share !== null) {
        const step = stepCollapse(collapse, share);
        collapse = step.state;
        session.state.collapse = collapse;
        metrics[WELL_FORMED_METRIC] = share;
        metrics[COLLAPSE_METRIC] = step.collapsed ? 1 : 0;
        if (step.started) log(collapseWarning(step, iteration));
      }
      session.state.iteration = iteration;
      lastIteration = iteration;
      await sink.iteration(iteration, metrics, episodes);
      // Tensor work resolves its promises as microtasks, which never let the event loop run:
      // yield once per iteration so signal handlers (Ctrl-C, a stop request) get their turn.
      await new Promise((resolve) => setImmediate(resolve));
      const stopping = options.shouldStop?.() ?? false;
      const last = iteration === cfg.trainer.total_training_steps;
      const due = cfg.trainer.save_freq > 0 && iteration % cfg.trainer.save_freq === 0;
      if (due || last || stopping) await checkpoint(session, metrics);
      if (stopping && !last) {
        status = 'stopped';
        break;
      }
    }
    await sink.runEnded(status);
    return { status, lastIteration, backend: backend.name, device: backend.device };
  } catch (error) {
    if (error instanceof WarmStartStopped) {
      log(error.text(options.resumeCommand));
      await sink.runEnded('stopped');
      return { status: 'stopped', lastIteration: 0, backend: backend.name, device: backend.device };
    }
    failed = true;
    try {
      await sink.runEnded('failed', failureText(error));
    } catch {
      // The store itself failed (a full disk): the original error says why, so it is the one thrown.
    }
    throw error;
  } finally {
    disposeSession(session, failed);
  }
}

/**
 * Frees the session's models. After running out of memory the backend's heap is unusable and
 * freeing fails too: the error that stopped the run says why, so that one propagates, not this.
 */
function disposeSession(session: Session | null, failed: boolean): void {
  try {
    session?.dispose();
  } catch (cleanupError) {
    if (!failed) throw cleanupError;
  }
}

/** Errors the user can act on are recorded as their one-line message; bugs keep their stack. */
const USER_FACING_ERRORS = new Set(['CheckpointError', 'ConfigError', 'EnvConfigError', 'EnvModuleError', 'BackendError', 'StoreError', 'HfModelError', 'ChatTemplateError']);

function failureText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return USER_FACING_ERRORS.has(error.name) ? error.message : (error.stack ?? error.message);
}

async function runIteration(s: Session, iteration: number): Promise<{ metrics: Record<string, number>; episodes: EpisodeReport[] }> {
  const cfg = s.cfg;
  const actor = cfg.actor_rollout_ref.actor;
  const temperature = cfg.actor_rollout_ref.rollout.temperature || 1;
  const metrics: Record<string, number> = {};
  // Rows per forward pass outside the update (old logprobs, reference, values): a micro-batch.
  const SCORE_CHUNK = actor.ppo_micro_batch_size_per_gpu;
  const clock = startIterationClock();

  const rolloutStart = performance.now();
  const generator = rolloutGenerator(s, s.rng.sampling);
  const rollout = await phase('rollout', () =>
    runRollout({
      esManager: s.esTrain,
      contextManager: createContextManager(cfg, s.tokenizer),
      tokenizer: s.tokenizer,
      generator,
      settings: rolloutSettingsFromConfig(cfg, 'train'),
    }),
  );
  const generatedTokens = generator.takeTokenCount();
  // The rollout's caches had this iteration's widths: their pooled buffers would only pile up.
  releasePooledDeviceMemory();
  const rolloutSeconds = (performance.now() - rolloutStart) / 1000;
  clock.sample();
  Object.assign(metrics, rollout.metrics);
  warnIfContextFull(s, rollout.episodes, iteration);

  const filter = filterGroupsByRewardStd(
    groupScores(rollout.episodes),
    cfg.rollout_filter_ratio,
    cfg.rollout_filter_type,
    cfg.rollout_filter_include_zero,
  );
  Object.assign(metrics, filter.metrics);
  const keptGroups = new Set(filter.keptGroupIds);
  const batch = buildTrainingBatch(rollout.episodes.filter((e) => keptGroups.has(e.groupId)));

  const updateStart = performance.now();
  s.actorOptimizer.learningRate = scheduledLearningRate(actor.optim, iteration, cfg.trainer.total_training_steps);
  metrics['actor/lr'] = s.actorOptimizer.learningRate;
  if (s.criticOptimizer) {
    s.criticOptimizer.learningRate = scheduledLearningRate(cfg.critic.optim, iteration, cfg.trainer.total_training_steps);
    metrics['critic/lr'] = s.criticOptimizer.learningRate;
  }
  let advantages: Float32Array | null = null;
  if (batch.rows > 0) {
    const stageCfg = configForTrainStage(cfg, s.trainStage);
    // A stage whose KL weights are all 0 would only spend a forward pass on a number nobody uses.
    const refLogprobs = s.reference && stageUsesReference(stageCfg)
      ? maskInPlace(
          (await clock.time('ref', () => phase('reference', () => scoreBatch(s.reference!, batch, { temperature, logprobs: true, chunk: SCORE_CHUNK }, parallel(s, 'reference'))))).logprobs as Float32Array,
          batch.mask,
        )
      : null;
    const values = s.critic
      ? ((await clock.time('values', () => phase('values', () => scoreBatch(s.critic!, batch, { logprobs: false, values: true, chunk: SCORE_CHUNK }, parallel(s, 'critic'))))).values as Float32Array)
      : null;
    if (values) maskInPlace(values, batch.mask);

    let rewards = batch.rewards;
    if (cfg.algorithm.use_kl_in_reward && refLogprobs) {
      const penalty = applyKlPenalty({
        rows: batch.rows,
        cols: batch.cols,
        rewards,
        logp: batch.oldLogprobs,
        refLogp: refLogprobs,
        mask: batch.mask,
        beta: s.klController.value,
        type: cfg.algorithm.kl_penalty as KlType,
      });
      rewards = penalty.rewards;
      metrics['actor/reward_kl_penalty'] = penalty.meanKl;
      metrics['actor/reward_kl_penalty_coeff'] = s.klController.value;
      s.klController.update(penalty.meanKl, batch.rows);
    }
    const adv = await clock.time('adv', () =>
      phase('advantage', () =>
        computeAdvantages(
          { rows: batch.rows, cols: batch.cols, rewards, mask: batch.mask, values: values ?? undefined, turnEnds: batch.turnEnds, groupIds: batch.groupIds, stateKeys: batch.stateKeys },
          cfg.algorithm,
        ),
      ),
    );
    advantages = cfg.algorithm.center_advantages_by_token
      ? centerAdvantagesByToken({
          rows: batch.rows,
          cols: batch.cols,
          mask: batch.mask,
          tokens: batch.tokens,
          advantages: adv.advantages,
          perRowMean: actor.loss_agg_mode === 'seq-mean-token-mean',
          priorCount: cfg.algorithm.center_advantages_prior,
        })
      : adv.advantages;
    if (s.critic && s.criticOptimizer && values) {
      Object.assign(
        metrics,
        await clock.time('update_critic', () =>
          phase('critic update', () =>
            updateCritic(s.critic!, s.criticOptimizer!, batch, adv.returns, values, criticUpdateSettings(cfg), s.rng.minibatch, parallel(s, 'critic')),
          ),
        ),
      );
      metrics['critic/vpred_mean'] = maskedMean(values, batch.mask);
    }
    // The environment's rewards, not the KL-penalised ones: the value head learns the outcome.
    const auxReturns = actor.aux_value_coef > 0 ? returnsToGo(batch, cfg.algorithm.gamma) : null;
    Object.assign(
      metrics,
      await clock.time('update_actor', () =>
        phase('actor update', () =>
          updateActor(s.policy, s.actorOptimizer, batch, advantages!, actorUpdateSettings(stageCfg, temperature, refLogprobs, auxReturns), s.rng.minibatch, parallel(s, 'policy')),
        ),
      ),
    );
    // verl's name for the KL loss's weight (the in-reward controller's is reward_kl_penalty_coeff),
    // logged only where a KL loss is on; a curriculum stage may change it.
    if (stageCfg.actor_rollout_ref.actor.use_kl_loss) metrics['actor/kl_coef'] = stageCfg.actor_rollout_ref.actor.kl_loss_coef;
    const turns = batch.episodes.flatMap((e) => e.turns);
    Object.assign(
      metrics,
      dataMetrics({
        rows: batch.rows,
        cols: batch.cols,
        mask: batch.mask,
        scores: batch.rewards,
        rewards,
        advantages,
        returns: adv.returns,
        values,
        replies: { total: turns.length, cut: turns.filter((t) => t.cut).length },
        rowLengths: batch.tokens.map((row) => row.length),
        contextFull: batch.episodes.filter((e) => e.endReason === 'context-full').length,
        shaping: stageCfg.algorithm.turn_shaping !== null ? batch.episodes.map((e) => e.shapingBonus ?? 0) : null,
      }),
    );
  }
  const updateSeconds = (performance.now() - updateStart) / 1000;
  const trainedTokens = batch.mask.reduce((a, b) => a + b, 0);
  s.state.totalTokens += generatedTokens;
  metrics['timing_s/rollout'] = rolloutSeconds;
  metrics['timing_s/update'] = updateSeconds;
  metrics['perf/rollout_tokens_per_second'] = rolloutSeconds > 0 ? generatedTokens / rolloutSeconds : 0;
  metrics['perf/train_tokens_per_second'] = updateSeconds > 0 ? trainedTokens / updateSeconds : 0;
  metrics['perf/total_generated_tokens'] = s.state.totalTokens;
  // RLlib's lifetime counts and SB3's total_timesteps: an x axis for sample efficiency.
  if (s.state.totalEpisodes !== undefined && s.state.totalEnvSteps !== undefined) {
    s.state.totalEpisodes += rollout.episodes.length;
    s.state.totalEnvSteps += rollout.episodes.reduce((sum, e) => sum + e.numActions, 0);
    metrics['perf/total_episodes'] = s.state.totalEpisodes;
    metrics['perf/total_env_steps'] = s.state.totalEnvSteps;
  }
  metrics['batch/kept_episodes'] = batch.rows;
  // The same seed gives the same run only with the same worker count: it is part of the record.
  metrics['perf/workers'] = (s.workers?.size ?? 0) + 1;

  const advantageByEpisode = new Map<EpisodeRecord, number[] | null>();
  batch.episodes.forEach((episode, row) => advantageByEpisode.set(episode, advantages ? turnAdvantageMeans(batch, row, advantages) : null));
  const episodes = rollout.episodes.map((e) => episodeReport(e, iteration, !keptGroups.has(e.groupId), advantageByEpisode.get(e) ?? null));

  const test = cfg.trainer.test_freq;
  if (test > 0 && (iteration % test === 0 || iteration === cfg.trainer.total_training_steps)) {
    const val = await clock.time('testing', () => validate(s, iteration));
    Object.assign(metrics, val.metrics);
    episodes.push(...val.episodes);
  }
  releasePooledDeviceMemory();
  Object.assign(metrics, clock.metrics());
  s.state.rng = { sampling: s.rng.sampling.state(), minibatch: s.rng.minibatch.state(), validation: s.rng.validation.state() };
  s.state.esTrain = s.esTrain.state();
  s.state.klController = s.klController.state();
  return { metrics, episodes };
}

/**
 * Says once per run, on the log the CLI prints, that episodes were cut for lack of context room:
 * otherwise the only sign is the `context_full` metric, and a run can train on truncated
 * episodes for its whole length unnoticed.
 */
function warnIfContextFull(s: Session, episodes: readonly EpisodeRecord[], iteration: number): void {
  // Not one first turn played: every iteration would train nothing and the run still "complete".
  if (episodes.length > 0 && episodes.every((e) => e.endReason === 'context-full' && e.turns.length === 0)) {
    const which = contextLimitText(s.cfg, s.policy.config.contextLength);
    throw new ConfigError([
      {
        path: ['model', 'context_length'],
        message: `not one of the ${episodes.length} ${episodes[0].split} episodes could play its first turn: the first prompt leaves no room for a reply in the context (${which}); raise model.context_length (a pretrained model's own limit is its max_position_embeddings)`,
      },
    ]);
  }
  if (s.contextWarned) return;
  const cut = episodes.filter((e) => e.endReason === 'context-full');
  if (cut.length === 0) return;
  s.contextWarned = true;
  const split = episodes[0].split;
  const model = s.policy.config.contextLength;
  const limit =
    model < s.cfg.model.context_length
      ? `the model's max_position_embeddings ${model}, below model.context_length ${s.cfg.model.context_length}); shorten episodes `
      : `model.context_length ${s.cfg.model.context_length}); raise model.context_length, or shorten episodes `;
  s.options.log?.(
    `warning: ${cut.length} of ${episodes.length} ${split} episodes at iteration ${iteration} ended because the context was full (` +
      limit +
      `(actor_rollout_ref.rollout.response_length, agent_proxy.max_context_window). Said once per run; the ${split}/<tag>/context_full metric counts them.`,
  );
}

/**
 * The rollout's generator: the policy on this thread, or on every worker too, each shard with a
 * stream seeded from one draw of `rng` (so a resumed run draws the same seeds).
 */
function rolloutGenerator(s: Session, rng: Rng): PolicyGenerator | ShardedGenerator {
  const prefixReuse = s.cfg.actor_rollout_ref.rollout.prefix_reuse;
  if (s.workers) return new ShardedGenerator(s.policy, s.workers, rng.nextU32(), s.tokenizer.padId, { prefixReuse });
  return new PolicyGenerator(s.policy, rng, s.tokenizer.padId, { prefixReuse });
}

function parallel(s: Session, role: ModelRole): Parallel | undefined {
  return s.workers ? { pool: s.workers, role } : undefined;
}

async function validate(s: Session, iteration = 0): Promise<{ metrics: Record<string, number>; episodes: EpisodeReport[] }> {
  const cfg = s.cfg;
  // Validation draws from its own generator, reseeded from the run seed and the iteration, so a
  // resumed run validates exactly as an uninterrupted one.
  const rng = new Rng(deriveSeed(cfg.trainer.seed, 'validation', iteration));
  const generator = rolloutGenerator(s, rng);
  const rollout = await runRollout({
    esManager: s.esVal,
    contextManager: createContextManager(cfg, s.tokenizer),
    tokenizer: s.tokenizer,
    generator,
    settings: rolloutSettingsFromConfig(cfg, 'val'),
  });
  warnIfContextFull(s, rollout.episodes, iteration);
  s.optimalSuccess ??= optimalSuccessByTag(s.cfg, s.options.resolveSpec);
  const metrics: Record<string, number> = { ...rollout.metrics };
  for (const [tag, value] of Object.entries(s.optimalSuccess)) metrics[`val/${tag}/optimal_success`] = value;
  return { metrics, episodes: rollout.episodes.map((e) => episodeReport(e, iteration, false, null)) };
}

async function checkpoint(s: Session, metrics: Record<string, number>): Promise<void> {
  const iteration = s.state.iteration;
  const dir = join(s.options.checkpointDir, `iter-${iteration}`);
  s.state.valSuccess = meanValSuccess(metrics);
  const saved = await saveCheckpoint(dir, {
    modelFiles: await s.modelFiles(),
    actorOptimizer: s.actorOptimizer,
    criticOptimizer: s.criticOptimizer,
    configYaml: resolvedConfigToYaml(s.cfg),
    sourceConfigYaml: s.options.configSource,
    state: s.state,
  });
  await s.options.sink.checkpoint({ iteration, path: dir, sizeBytes: saved.sizeBytes, sha256: saved.sha256, metrics });
  s.checkpoints = [...s.checkpoints.filter((c) => c.path !== dir), { path: dir, iteration, valSuccess: s.state.valSuccess ?? null }];
  if (s.warmStartCheckpoint !== null) {
    // The store dropped its row as it recorded this one: a finished checkpoint supersedes it.
    const removed = removeWarmStartFolders(s.options.checkpointDir);
    s.warmStartCheckpoint = null;
    if (removed.length > 0) await s.options.sink.checkpointsRemoved?.(removed);
  }
  // The warm start's checkpoint was asked for by name (warm_start.save_checkpoint): never pruned.
  const pinned = (c: { iteration: number }) => c.iteration === 0 && s.cfg.warm_start.save_checkpoint;
  const removed = checkpointsToPrune(s.checkpoints.filter((c) => !pinned(c)), s.cfg.trainer.keep_last_n);
  if (removed.length > 0) {
    s.checkpoints = s.checkpoints.filter((c) => !removed.includes(c));
    for (const c of removed) rmSync(c.path, { recursive: true, force: true });
    await s.options.sink.checkpointsRemoved?.(removed.map((c) => c.path));
  }
}

function maskInPlace(data: Float32Array, mask: Float32Array): Float32Array {
  for (let i = 0; i < data.length; i++) if (mask[i] === 0) data[i] = 0;
  return data;
}

/** Mean advantage over each shown turn's generated tokens, keyed by turn order in the sequence. */
function turnAdvantageMeans(batch: TrainingBatch, row: number, advantages: Float32Array): number[] {
  const seq = batch.episodes[row].sequence;
  const means: number[] = [];
  let start = 0;
  for (const end of seq.turnEnds) {
    let sum = 0;
    let count = 0;
    for (let t = start; t <= end; t++) {
      if (seq.lossMask[t] === 1) {
        sum += advantages[row * batch.cols + t];
        count++;
      }
    }
    means.push(count > 0 ? sum / count : 0);
    start = end + 1;
  }
  return means;
}

/** For tests: tensors alive now (the trainer must not leak across iterations). */
export function liveTensorCount(): number {
  return tf.memory().numTensors;
}
