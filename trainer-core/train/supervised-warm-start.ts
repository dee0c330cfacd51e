/**
 * The run's supervised warm start (`warm_start.mode`): its demonstrations regenerated from the
 * seed, DAgger's rounds, its progress on the log and the sink, and its checkpoints
 * (`warm_start.save_freq`), from which a stopped or killed run goes on where it was.
 */
import type { TrainOptions } from './train-options';
import type { RunConfig } from '../config/schema';
import { resolvedConfigToYaml } from '../config/load';
import type { TrainableModel } from '../model/trainable-model';
import type { Tokenizer } from '../rollout/tokenizer';
import { deriveSeed, Rng, type RngState } from '../rng';
import { createContextManager } from '../rollout/rollout-loop';
import { collectDemonstrations, longReplyNote, unsolvedDemonstrationsNote } from './demonstrations';
import { warmStart, WarmStartStopped, type WarmStartProgress } from './warm-start';
import { playRelabelledEpisodes } from './dagger';
import type { Parallel } from './micro-batch-runner';
import { PolicyGenerator } from '../model/policy-generator';
import { removeWarmStartFolders, saveWarmStartCheckpoint, warmStartCheckpointDir, type WarmStartResume } from './warm-start-checkpoint';

/** How the warm start keeps its progress: the policy's checkpoint files, and where it resumes from (null: step 0). */
export interface WarmStartSaving {
  modelFiles: () => Promise<Record<string, Uint8Array | string>>;
  resume: WarmStartResume | null;
}

/** A run's latest warm-start checkpoint: its folder and step. */
export interface WarmStartCheckpoint {
  dir: string;
  step: number;
}

/** Returns the run's latest warm-start checkpoint, null when it has none. */
export async function supervisedWarmStart(options: TrainOptions, policy: TrainableModel, tokenizer: Tokenizer, parallel: Parallel | undefined, saving: WarmStartSaving): Promise<WarmStartCheckpoint | null> {
  const cfg = options.config;
  const seed = cfg.trainer.seed;
  // Regenerated from the seed on a resume too: the same demonstrations as the run first had.
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
  const resume = saving.resume;
  const relabel = cfg.warm_start.dagger_rounds > 0 ? daggerRounds(options, policy, tokenizer, resume?.state.daggerRng) : undefined;
  const steps = cfg.warm_start.steps;
  // A long warm start says how far it is, about ten times, so a terminal is never silent for
  // minutes, and a hundred times to the sink, so the workbench's progress bar moves.
  const every = Math.max(1, Math.round(steps / 10));
  const reportEvery = Math.max(1, Math.round(steps / 100));
  const losses: number[] = resume ? resume.state.losses.map((loss) => loss ?? NaN) : [];
  const rng = resume ? Rng.fromState(resume.state.rng) : new Rng(deriveSeed(seed, 'warm-start'));
  if (resume) options.log?.(`warm start: resuming at step ${resume.state.step}/${steps}`);
  await options.sink.warmStartProgress?.(resume?.state.step ?? 0, steps, losses.at(-1) ?? null, 'warm start');
  let latest: WarmStartCheckpoint | null = resume ? { dir: resume.dir, step: resume.state.step } : null;
  const save = async ({ step, optimizer, added }: WarmStartProgress) => {
    const dir = warmStartCheckpointDir(options.checkpointDir, step);
    const saved = await saveWarmStartCheckpoint(dir, {
      cfg,
      modelFiles: await saving.modelFiles(),
      optimizer,
      configYaml: resolvedConfigToYaml(cfg),
      sourceConfigYaml: options.configSource,
      warmStart: { step, steps, rng: rng.state(), losses: losses.slice(0, step).map((loss) => (Number.isFinite(loss) ? loss : null)), daggerRng: relabel?.rngState() },
      added: relabel ? added : null,
    });
    // Recorded first (the store keeps one warm-start checkpoint a run), then the older folder goes.
    await options.sink.checkpoint({ iteration: 0, path: dir, sizeBytes: saved.sizeBytes, sha256: saved.sha256, metrics: {}, warmStartStep: step });
    const removed = removeWarmStartFolders(options.checkpointDir, dir);
    if (removed.length > 0) await options.sink.checkpointsRemoved?.(removed);
    latest = { dir, step };
  };
  const result = await warmStart({
    onStep: async (step, loss) => {
      losses[step - 1] = loss;
      if (step % every === 0 && step < steps) options.log?.(`warm start: step ${step}/${steps}, loss ${loss.toFixed(4)}`);
      if (step % reportEvery === 0 || step === steps) await options.sink.warmStartProgress?.(step, steps, loss, 'warm start');
    },
    parallel,
    policy,
    demonstrations,
    steps,
    lr: cfg.warm_start.lr,
    schedule: { type: cfg.warm_start.lr_scheduler_type, minLrRatio: cfg.warm_start.min_lr_ratio },
    batchSize: warmStartBatchSize(cfg),
    gradClip: cfg.actor_rollout_ref.actor.grad_clip,
    rng,
    shouldStop: options.shouldStop,
    relabel,
    log: options.log,
    resume: resume ? { step: resume.state.step, optimizer: resume.optimizer, added: resume.added } : undefined,
    // Expert iteration after it can be stopped too: it then starts again from the warm start's end.
    checkpoints: { every: cfg.warm_start.save_freq, atEnd: cfg.expert_iteration.rounds > 0, save },
  });
  if (result.stoppedAfter !== undefined) throw new WarmStartStopped(result.stoppedAfter, steps, 'the warm start', result.savedStep);
  options.log?.(`warm start (${cfg.warm_start.mode}): ${steps} steps on ${demonstrations.length} demonstrations, final loss ${(losses.at(-1) ?? NaN).toFixed(4)}`);
  await options.sink.warmStartLoss?.(losses);
  return latest;
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

/**
 * The warm start's DAgger rounds (`warm_start.dagger_rounds`): the policy as it is at each round
 * plays new rooms, sampling from a stream a checkpoint keeps (`rngState`) and a resume restores.
 */
function daggerRounds(options: TrainOptions, policy: TrainableModel, tokenizer: Tokenizer, restored: RngState | undefined) {
  const cfg = options.config;
  const { dagger_rounds: rounds, dagger_episodes: episodes } = cfg.warm_start;
  const rng = restored ? Rng.fromState(restored) : new Rng(deriveSeed(cfg.trainer.seed, 'dagger'));
  const cm = createContextManager(cfg, tokenizer);
  return {
    rounds,
    rngState: () => rng.state(),
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
