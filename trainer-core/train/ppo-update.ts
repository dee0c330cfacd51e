import * as tf from '@tensorflow/tfjs';
import { clipByGlobalNorm } from '../algo/grad-clip';
import { aggLoss, klLoss, policyLoss, valueLoss, type LossAggMode } from '../algo/losses';
import { maskCounts, ppoMiniBatches } from '../algo/minibatch';
import type { KlType } from '../algo/kl';
import type { Adam } from '../model/adam';
import { scoreTokens, type ScoreOptions } from '../model/scoring';
import type { Transformer } from '../model/transformer';
import type { Rng } from '../rng';
import { sliceRows, scatterRows, type TrainingBatch } from './batch';

/**
 * The update half of a PPO iteration: forward passes that score the batch, and the actor and
 * critic optimisation over mini-batches, micro-batches and epochs.
 */

/** Scores every row of the batch in chunks; returns [rows, cols] arrays. */
export function scoreBatch(
  model: Transformer,
  batch: TrainingBatch,
  options: ScoreOptions & { chunk: number },
): { logprobs?: Float32Array; values?: Float32Array } {
  const size = batch.rows * batch.cols;
  const logprobs = options.logprobs ? new Float32Array(size) : undefined;
  const values = options.values ? new Float32Array(size) : undefined;
  for (let start = 0; start < batch.rows; start += options.chunk) {
    const rowIds = range(start, Math.min(batch.rows, start + options.chunk));
    const rows = rowIds.map((r) => batch.tokens[r]);
    tf.tidy(() => {
      const scores = scoreTokens(model, rows, options);
      if (logprobs && scores.logprobs) {
        scatterRows(logprobs, batch.cols, rowIds, scores.logprobs.dataSync() as Float32Array, scores.logprobs.shape[1]);
      }
      if (values && scores.values) {
        scatterRows(values, batch.cols, rowIds, scores.values.dataSync() as Float32Array, scores.values.shape[1]);
      }
    });
  }
  return { logprobs, values };
}

export interface ActorUpdateSettings {
  miniBatchSize: number;
  microBatchSize: number;
  epochs: number;
  clipLow: number;
  clipHigh: number;
  clipRatioC: number;
  aggMode: LossAggMode;
  entropyCoeff: number;
  temperature: number;
  gradClip: number;
  /** KL to the reference as a loss term, when on. */
  klLoss: { coef: number; type: KlType; refLogprobs: Float32Array } | null;
}

export interface CriticUpdateSettings {
  miniBatchSize: number;
  microBatchSize: number;
  epochs: number;
  cliprange: number;
  aggMode: LossAggMode;
  gradClip: number;
}

type Metrics = Record<string, number>;

export function updateActor(
  policy: Transformer,
  optimizer: Adam,
  batch: TrainingBatch,
  advantages: Float32Array,
  settings: ActorUpdateSettings,
  rng: Rng,
): Metrics {
  const sums = new MetricSums();
  const names = variableNames(policy);
  for (const mini of ppoMiniBatches({
    batchSize: batch.rows,
    miniBatchSize: Math.min(settings.miniBatchSize, batch.rows),
    microBatchSize: Math.min(settings.microBatchSize, settings.miniBatchSize, batch.rows),
    epochs: settings.epochs,
    rng,
  })) {
    const counts = maskCounts(batch.mask, batch.cols, mini.rows);
    if (counts.tokens === 0) continue;
    const aggOptions = { globalTokens: counts.tokens, globalSeqs: counts.seqs, normLength: batch.cols };
    const accumulated = new GradientSum();
    const miniMetrics = new MetricSums();
    for (const micro of mini.microBatches) {
      const rows = micro.map((r) => batch.tokens[r]);
      const width = Math.max(...rows.map((r) => r.length));
      const slice = (data: Float32Array) => tf.tensor2d(sliceRows(data, batch.cols, micro, width), [micro.length, width]);
      const kept: Record<string, tf.Scalar> = {};
      const { grads, value } = tf.tidy(() => {
        const mask = slice(batch.mask);
        const oldLogp = slice(batch.oldLogprobs);
        const adv = slice(advantages);
        const refLogp = settings.klLoss ? slice(settings.klLoss.refLogprobs) : null;
        return tf.variableGrads(() => {
          const scores = scoreTokens(policy, rows, { temperature: settings.temperature, logprobs: true, entropy: true });
          const logp = scores.logprobs as tf.Tensor2D;
          const pg = policyLoss({
            logp,
            oldLogp,
            advantages: adv,
            mask,
            clipLow: settings.clipLow,
            clipHigh: settings.clipHigh,
            clipRatioC: settings.clipRatioC,
            aggMode: settings.aggMode,
            aggOptions,
          });
          const entropy = aggLoss(scores.entropy as tf.Tensor2D, mask, settings.aggMode, aggOptions);
          let loss = pg.loss.sub(entropy.mul(settings.entropyCoeff));
          kept.pg_loss = tf.keep(pg.loss);
          kept.pg_clipfrac = tf.keep(pg.clipfrac);
          kept.pg_clipfrac_lower = tf.keep(pg.clipfracLower);
          kept.ppo_kl = tf.keep(pg.ppoKl);
          kept.entropy = tf.keep(entropy);
          if (settings.klLoss && refLogp) {
            const kl = klLoss({ logp, refLogp, mask, type: settings.klLoss.type, aggMode: settings.aggMode, aggOptions });
            kept.kl_loss = tf.keep(kl);
            loss = loss.add(kl.mul(settings.klLoss.coef));
          }
          return loss as tf.Scalar;
        }, policy.variables());
      });
      value.dispose();
      accumulated.add(grads, names);
      // Losses are normalised by the whole mini-batch, so micro-batch parts add up.
      for (const [key, scalar] of Object.entries(kept)) {
        const v = scalar.dataSync()[0];
        scalar.dispose();
        miniMetrics.add(key, key === 'pg_loss' || key === 'entropy' || key === 'kl_loss' ? v : v * (micro.length / mini.rows.length), 1);
      }
    }
    const norm = accumulated.step(optimizer, settings.gradClip);
    for (const [key, value] of miniMetrics.totals()) sums.add(`actor/${key}`, value);
    sums.add('actor/grad_norm', norm);
  }
  return sums.means();
}

export function updateCritic(
  critic: Transformer,
  optimizer: Adam,
  batch: TrainingBatch,
  returns: Float32Array,
  oldValues: Float32Array,
  settings: CriticUpdateSettings,
  rng: Rng,
): Metrics {
  const sums = new MetricSums();
  const names = variableNames(critic);
  for (const mini of ppoMiniBatches({
    batchSize: batch.rows,
    miniBatchSize: Math.min(settings.miniBatchSize, batch.rows),
    microBatchSize: Math.min(settings.microBatchSize, settings.miniBatchSize, batch.rows),
    epochs: settings.epochs,
    rng,
  })) {
    const counts = maskCounts(batch.mask, batch.cols, mini.rows);
    if (counts.tokens === 0) continue;
    const aggOptions = { globalTokens: counts.tokens, globalSeqs: counts.seqs, normLength: batch.cols };
    const accumulated = new GradientSum();
    const miniMetrics = new MetricSums();
    for (const micro of mini.microBatches) {
      const rows = micro.map((r) => batch.tokens[r]);
      const width = Math.max(...rows.map((r) => r.length));
      const slice = (data: Float32Array) => tf.tensor2d(sliceRows(data, batch.cols, micro, width), [micro.length, width]);
      const kept: Record<string, tf.Scalar> = {};
      const { grads, value } = tf.tidy(() => {
        const mask = slice(batch.mask);
        const ret = slice(returns);
        const old = slice(oldValues);
        return tf.variableGrads(() => {
          const values = scoreTokens(critic, rows, { logprobs: false, values: true }).values as tf.Tensor2D;
          const vl = valueLoss({ values, oldValues: old, returns: ret, mask, cliprange: settings.cliprange, aggMode: settings.aggMode, aggOptions });
          kept.vf_clipfrac = tf.keep(vl.clipfrac);
          return vl.loss;
        }, critic.variables());
      });
      // The returned loss is the value loss itself: read it before freeing it.
      kept.vf_loss = value;
      accumulated.add(grads, names);
      for (const [key, scalar] of Object.entries(kept)) {
        const v = scalar.dataSync()[0];
        scalar.dispose();
        miniMetrics.add(key, key === 'vf_loss' ? v : v * (micro.length / mini.rows.length), 1);
      }
    }
    const norm = accumulated.step(optimizer, settings.gradClip);
    for (const [key, value] of miniMetrics.totals()) sums.add(`critic/${key}`, value);
    sums.add('critic/grad_norm', norm);
  }
  return sums.means();
}

/** tf.variableGrads keys gradients by tfjs variable name; the optimizer wants parameter names. */
function variableNames(model: Transformer): Map<string, string> {
  return new Map(model.namedVariables().map(([name, variable]) => [variable.name, name]));
}

class GradientSum {
  private sum: Record<string, tf.Tensor> = {};

  add(grads: tf.NamedTensorMap, names: Map<string, string>): void {
    for (const [variableName, grad] of Object.entries(grads)) {
      const name = names.get(variableName) ?? variableName;
      const previous = this.sum[name];
      if (previous) {
        this.sum[name] = tf.add(previous, grad);
        previous.dispose();
        grad.dispose();
      } else {
        this.sum[name] = grad;
      }
    }
  }

  /** Clips, applies one optimizer step (skipped when the norm is not finite), frees memory. */
  step(optimizer: Adam, maxNorm: number): number {
    const clipped = clipByGlobalNorm(this.sum, maxNorm);
    if (clipped.finite) optimizer.apply(clipped.grads);
    tf.dispose(Object.values(clipped.grads));
    tf.dispose(Object.values(this.sum));
    this.sum = {};
    return clipped.norm;
  }
}

class MetricSums {
  private readonly sum = new Map<string, number>();
  private readonly count = new Map<string, number>();

  add(key: string, value: number, count = 1): void {
    this.sum.set(key, (this.sum.get(key) ?? 0) + value);
    this.count.set(key, (this.count.get(key) ?? 0) + count);
  }

  /** Sums over micro-batches (a mini-batch's loss is the sum of its parts). */
  totals(): Array<[string, number]> {
    return [...this.sum.entries()];
  }

  means(): Metrics {
    const out: Metrics = {};
    for (const [key, total] of this.sum) out[key] = total / (this.count.get(key) ?? 1);
    return out;
  }
}

function range(start: number, end: number): number[] {
  return Array.from({ length: end - start }, (_, i) => start + i);
}
