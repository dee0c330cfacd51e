import * as tf from '@tensorflow/tfjs';
import { Adam } from '../model/adam';
import type { TrainableModel } from '../model/trainable-model';
import type { Rng } from '../rng';
import { clipByGlobalNormAsync } from '../algo/grad-clip';
import { learningRateAt } from '../algo/lr-schedule';
import type { Demonstration } from './demonstrations';
import type { OptimizerSnapshot } from './checkpoint';
import { demonstrationFitWarning, fitDemonstrations, keepsAReply, noDemonstrationFits } from './demonstration-fit';
import { contiguousBlocks } from '../workers/worker-pool';
import { forEachMicroBatchGradient, GradientSum, type Parallel } from './micro-batch-runner';
import { microBatchGradients, type MicroBatch } from '../model/micro-batch-loss';

/**
 * A stop request arrived during the warm start: the run ends there. `savedStep` is the step of its
 * latest warm-start checkpoint (`warm_start.save_freq`), from which resuming the run goes on; null
 * when none was saved.
 */
export class WarmStartStopped extends Error {
  constructor(readonly step: number, readonly steps: number, readonly phase = 'the warm start', readonly savedStep: number | null = null) {
    super('');
    this.message = this.text();
    this.name = 'WarmStartStopped';
  }

  /** What happened and what to do next; `resume` is the command that resumes this run, when the caller knows its id. */
  text(resume = 'turnlab resume <run>'): string {
    return `stopped during ${this.phase}, after step ${this.step} of ${this.steps}; ${this.next(resume)}`;
  }

  private next(resume: string): string {
    if (this.savedStep === null) {
      const why = this.phase === 'the warm start' ? 'warm_start.save_freq is 0, or it stopped before its first step' : 'expert iteration does not resume';
      return `no checkpoint is saved (${why}), so start the run again`;
    }
    const again = this.phase === 'the warm start' ? '' : ' (expert iteration starts again from its first round)';
    return `the warm start's checkpoint at step ${this.savedStep} is saved: resume the run (${resume}, or Resume in the workbench) to go on from there${again}`;
  }
}

/** Where a warm start stands when it saves: `step` steps done, its Adam, and what DAgger added to the demonstrations. */
export interface WarmStartProgress {
  step: number;
  optimizer: Adam;
  added: readonly Demonstration[];
}

/**
 * Supervised warm start: maximise the likelihood of demonstrated replies (loss mask on the
 * replies only, as in training). Its own Adam, so PPO's optimizer state starts fresh. With worker
 * threads (`parallel`), each step's rows are split into one micro-batch per thread.
 */
export async function warmStart(options: {
  policy: TrainableModel;
  demonstrations: readonly Demonstration[];
  steps: number;
  lr: number;
  /** Cosine decays over the warm start's steps towards `minLrRatio` x lr; constant by default. */
  schedule?: { type: 'constant' | 'cosine'; minLrRatio: number };
  batchSize: number;
  gradClip: number;
  rng: Rng;
  onStep?: (step: number, loss: number) => void | Promise<void>;
  parallel?: Parallel;
  /** Polled before each step; true ends the warm start there (a stop request: Ctrl-C, the app's Stop). */
  shouldStop?: () => boolean;
  /**
   * DAgger: the steps fall into `rounds + 1` equal phases, and after each phase but the last
   * `play(round)` adds demonstrations from boards the current policy reached to the pool.
   */
  relabel?: { rounds: number; play: (round: number) => Promise<readonly Demonstration[]> };
  /** Says, once, that demonstrations longer than the model's context were cut. */
  log?: (line: string) => void;
  /**
   * Goes on from a warm-start checkpoint: the steps it had done, its Adam moments and what DAgger
   * had added; the caller restores the policy and `rng`.
   */
  resume?: { step: number; optimizer: OptimizerSnapshot; added: readonly Demonstration[] };
  /**
   * `warm_start.save_freq`: `save` after every `every` steps (0: never), when a stop request ends
   * the warm start, and after the last step with `atEnd`.
   */
  checkpoints?: { every: number; atEnd: boolean; save: (progress: WarmStartProgress) => Promise<void> };
}): Promise<{ finalLoss: number; stoppedAfter?: number; savedStep: number | null }> {
  const { policy, demonstrations, steps, rng } = options;
  const trainable = (d: Demonstration) => d.sequence.lossMask.some((m) => m === 1);
  const contextLength = policy.config.contextLength;
  let warned = false;
  const fitted = (played: readonly Demonstration[], first = false) => {
    const fit = fitDemonstrations(played, contextLength);
    if (first && !keepsAReply(fit)) throw noDemonstrationFits(fit, contextLength);
    const warning = demonstrationFitWarning(fit, played.length, contextLength);
    if (warning && !warned) options.log?.(warning);
    warned ||= warning !== null;
    return fit.demonstrations.filter(trainable);
  };
  const usable = fitted(demonstrations, true);
  if (usable.length === 0) throw new Error('warm start: the environments produced no demonstrations (no solver and no named actions?)');
  const rounds = options.relabel?.rounds ?? 0;
  const relabelAt = new Map(Array.from({ length: rounds }, (_, r) => [Math.round(((r + 1) * steps) / (rounds + 1)), r + 1]));
  const optimizer = new Adam(policy.namedVariables(), { learningRate: options.lr });
  const added: Demonstration[] = [];
  const resume = options.resume;
  if (resume) {
    optimizer.loadState(resume.optimizer.tensors, resume.optimizer.step);
    added.push(...resume.added);
    usable.push(...resume.added);
  }
  // The step the latest checkpoint holds: the one resumed from counts, so it is not written again.
  let savedStep = resume?.step ?? null;
  const saving = options.checkpoints && options.checkpoints.every > 0 ? options.checkpoints : null;
  const save = async (step: number) => {
    if (!saving || step === 0 || savedStep === step) return;
    await saving.save({ step, optimizer, added });
    savedStep = step;
  };
  let finalLoss = NaN;
  try {
    const schedule = options.schedule ?? { type: 'constant', minLrRatio: 0 };
    for (let step = (resume?.step ?? 0) + 1; step <= steps; step++) {
      if (options.shouldStop) {
        // Tensor work never lets the event loop run: yield so a signal handler can ask to stop.
        await new Promise((resolve) => setImmediate(resolve));
        if (options.shouldStop()) {
          await save(step - 1);
          return { finalLoss, stoppedAfter: step - 1, savedStep };
        }
      }
      const round = relabelAt.get(step - 1);
      if (round !== undefined && options.relabel) {
        const relabelled = fitted(await options.relabel.play(round));
        added.push(...relabelled);
        usable.push(...relabelled);
      }
      optimizer.learningRate = learningRateAt(step, {
        schedule: schedule.type,
        lr: options.lr,
        totalIterations: steps,
        warmupRatio: 0,
        minLrRatio: schedule.minLrRatio,
        numCycles: 0.5,
      });
      const picked = Array.from({ length: Math.min(options.batchSize, usable.length) }, () => rng.choice(usable));
      const rows = picked.map((d) => d.sequence.inputIds);
      const documents = picked.map((d) => d.sequence.documentIds);
      const width = Math.max(...rows.map((r) => r.length));
      const maskData = new Float32Array(picked.length * width);
      picked.forEach((d, i) => maskData.set(d.sequence.lossMask, i * width));
      finalLoss = options.parallel
        ? await sharedStep(policy, optimizer, rows, documents, maskData, width, options.gradClip, options.parallel)
        : await localStep(policy, optimizer, rows, documents, maskData, width, options.gradClip);
      await options.onStep?.(step, finalLoss);
      if (saving && step % saving.every === 0) await save(step);
    }
    if (saving?.atEnd) await save(steps);
  } finally {
    optimizer.dispose();
  }
  return { finalLoss, savedStep };
}

/** One warm-start step on this thread: the same supervised loss a worker thread computes for its share (micro-batch-loss.ts). */
async function localStep(policy: TrainableModel, optimizer: Adam, rows: number[][], documents: number[][], mask: Float32Array, width: number, gradClip: number): Promise<number> {
  const count = mask.reduce((a, b) => a + b, 0);
  const { grads: named, scalars } = await microBatchGradients(policy, { rows, documents, width, arrays: { mask }, aggOptions: { globalTokens: count } }, { role: 'supervised' });
  const clipped = await clipByGlobalNormAsync(named, gradClip);
  if (clipped.finite) optimizer.apply(clipped.grads);
  tf.dispose([...Object.values(clipped.grads), ...Object.values(named)]);
  return scalars.loss;
}

/** One warm-start step split over the worker threads: the same loss, summed in row order. */
async function sharedStep(
  policy: TrainableModel,
  optimizer: Adam,
  rows: number[][],
  documents: number[][],
  mask: Float32Array,
  width: number,
  gradClip: number,
  parallel: Parallel,
): Promise<number> {
  const globalTokens = mask.reduce((a, b) => a + b, 0);
  const micros: MicroBatch[] = contiguousBlocks(rows.length, parallel.pool.size + 1)
    .filter(([start, end]) => end > start)
    .map(([start, end]) => {
      const blockWidth = Math.max(...rows.slice(start, end).map((r) => r.length));
      const blockMask = new Float32Array((end - start) * blockWidth);
      for (let r = start; r < end; r++) blockMask.set(mask.subarray(r * width, r * width + blockWidth), (r - start) * blockWidth);
      return { rows: rows.slice(start, end), documents: documents.slice(start, end), width: blockWidth, arrays: { mask: blockMask }, aggOptions: { globalTokens } };
    });
  const sum = new GradientSum();
  let loss = 0;
  await forEachMicroBatchGradient(policy, micros, { role: 'supervised' }, parallel, (result) => {
    sum.add(result.grads);
    loss += result.scalars.loss;
  });
  await sum.step(optimizer, gradClip);
  await parallel.pool.syncWeights(parallel.role, policy);
  return loss;
}
