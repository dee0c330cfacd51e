import * as tf from '@tensorflow/tfjs';
import { Adam } from '../model/adam';
import type { TrainableModel } from '../model/trainable-model';
import type { Rng } from '../rng';
import { clipByGlobalNormAsync } from '../algo/grad-clip';
import { learningRateAt } from '../algo/lr-schedule';
import type { Demonstration } from './demonstrations';
import { demonstrationFitWarning, fitDemonstrations, keepsAReply, noDemonstrationFits } from './demonstration-fit';
import { contiguousBlocks } from '../workers/worker-pool';
import { forEachMicroBatchGradient, GradientSum, type Parallel } from './micro-batch-runner';
import { microBatchGradients, type MicroBatch } from '../model/micro-batch-loss';

/** A stop request arrived during the warm start: the run ends there, with nothing to resume from. */
export class WarmStartStopped extends Error {
  constructor(readonly step: number, readonly steps: number, phase = 'the warm start') {
    super(`stopped during ${phase}, after step ${step} of ${steps}; no checkpoint is saved (a warm start does not resume), so start the run again`);
    this.name = 'WarmStartStopped';
  }
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
}): Promise<{ finalLoss: number; stoppedAfter?: number }> {
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
  let finalLoss = NaN;
  try {
    const schedule = options.schedule ?? { type: 'constant', minLrRatio: 0 };
    for (let step = 1; step <= steps; step++) {
      if (options.shouldStop) {
        // Tensor work never lets the event loop run: yield so a signal handler can ask to stop.
        await new Promise((resolve) => setImmediate(resolve));
        if (options.shouldStop()) return { finalLoss, stoppedAfter: step - 1 };
      }
      const round = relabelAt.get(step - 1);
      if (round !== undefined && options.relabel) usable.push(...fitted(await options.relabel.play(round)));
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
      if (options.parallel) {
        finalLoss = await sharedStep(policy, optimizer, rows, documents, maskData, width, options.gradClip, options.parallel);
        await options.onStep?.(step, finalLoss);
        continue;
      }
      // The same supervised loss a worker thread computes for its share (micro-batch-loss.ts).
      const count = maskData.reduce((a, b) => a + b, 0);
      const { grads: named, scalars } = await microBatchGradients(policy, { rows, documents, width, arrays: { mask: maskData }, aggOptions: { globalTokens: count } }, { role: 'supervised' });
      finalLoss = scalars.loss;
      const clipped = await clipByGlobalNormAsync(named, options.gradClip);
      if (clipped.finite) optimizer.apply(clipped.grads);
      tf.dispose([...Object.values(clipped.grads), ...Object.values(named)]);
      await options.onStep?.(step, finalLoss);
    }
  } finally {
    optimizer.dispose();
  }
  return { finalLoss };
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
