import * as tf from '@tensorflow/tfjs';
import { aggLoss, klLoss, policyLoss, valueLoss, type AggOptions, type LossAggMode } from '../algo/losses';
import { maskCounts, ppoMiniBatches } from '../algo/minibatch';
import type { KlType } from '../algo/kl';
import type { Adam } from '../model/adam';
import { scoreTokens, type ScoreOptions, type TokenScores } from '../model/scoring';
import type { LanguageModel } from '../model/language-model';
import type { TrainableModel } from '../model/trainable-model';
import type { Rng } from '../rng';
import { sliceRows, scatterRows, type TrainingBatch } from './batch';
import { clipByGlobalNormAsync } from '../algo/grad-clip';

/**
 * The update half of a PPO iteration: forward passes that score the batch, and the actor and
 * critic optimisation over mini-batches, micro-batches and epochs.
 */

/** Scores every row of the batch in chunks; returns [rows, cols] arrays. */
export async function scoreBatch(
  model: LanguageModel,
  batch: TrainingBatch,
  options: ScoreOptions & { chunk: number },
): Promise<{ logprobs?: Float32Array; values?: Float32Array }> {
  const size = batch.rows * batch.cols;
  const logprobs = options.logprobs ? new Float32Array(size) : undefined;
  const values = options.values ? new Float32Array(size) : undefined;
  // A row's scores do not depend on the other rows of its pass, so rows of similar length go
  // together: far less padding, and more rows per pass where rows are short.
  for (const rowIds of packByLength(range(0, batch.rows), (r) => batch.tokens[r].length, options.chunk)) {
    const rows = rowIds.map((r) => batch.tokens[r]);
    const documents = rowIds.map((r) => batch.documents[r]);
    const scores = tf.tidy(() => ({ ...scoreTokens(model, rows, { ...options, documents }) }) as tf.NamedTensorMap) as TokenScores;
    // Read back asynchronously: WebGPU under Node has no synchronous read.
    if (logprobs && scores.logprobs) {
      scatterRows(logprobs, batch.cols, rowIds, (await scores.logprobs.data()) as Float32Array, scores.logprobs.shape[1]);
    }
    if (values && scores.values) {
      scatterRows(values, batch.cols, rowIds, (await scores.values.data()) as Float32Array, scores.values.shape[1]);
    }
    tf.dispose(Object.values(scores));
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
  /** The constant length of seq-mean-token-sum-norm (see lossNormLength in update-settings.ts). */
  normLength: number;
  entropyCoeff: number;
  temperature: number;
  gradClip: number;
  /** KL to the reference as a loss term, when on. */
  klLoss: { coef: number; type: KlType; refLogprobs: Float32Array } | null;  /** See Schedule.packByLength; default true. */
  packByLength?: boolean;
}

export interface CriticUpdateSettings {
  miniBatchSize: number;
  microBatchSize: number;
  epochs: number;
  cliprange: number;
  aggMode: LossAggMode;
  /** The constant length of seq-mean-token-sum-norm. */
  normLength: number;
  gradClip: number;
  packByLength?: boolean;
}

type Metrics = Record<string, number>;

interface Schedule {
  miniBatchSize: number;
  microBatchSize: number;
  epochs: number;
  gradClip: number;
  /**
   * Regroups each mini-batch's rows by length into micro-batches (see packByLength); default
   * true. false keeps the shuffled order in chunks of microBatchSize (the plain schedule).
   */
  packByLength?: boolean;
  normLength: number;
}

/**
 * Micro-batches of rows of similar length: longest first, each micro-batch as many rows as fit
 * in a token budget of `maxRows` times the longest row's length, padding included. So no
 * micro-batch holds more tokens (nor more attention, which grows with rows x length^2) than
 * `maxRows` of the longest rows would, and short rows share a pass instead of being padded to
 * a long one. The losses are normalised by mini-batch totals (AggOptions), so how rows are
 * grouped into micro-batches does not change the mini-batch's gradient, only float rounding.
 */
export function packByLength(rows: readonly number[], lengthOf: (row: number) => number, maxRows: number): number[][] {
  if (rows.length === 0) return [];
  const sorted = [...rows].sort((a, b) => lengthOf(b) - lengthOf(a) || a - b);
  const budget = maxRows * Math.max(1, lengthOf(sorted[0]));
  const out: number[][] = [];
  let current: number[] = [];
  let width = 0;
  for (const row of sorted) {
    if (current.length > 0 && (current.length + 1) * width > budget) {
      out.push(current);
      current = [];
    }
    if (current.length === 0) width = Math.max(1, lengthOf(row));
    current.push(row);
  }
  out.push(current);
  return out;
}

interface MicroBatchContext {
  /** Token rows of the micro-batch. */
  rows: number[][];
  /** Their training documents (see TrainingBatch.documents). */
  documents: number[][];
  /** A [rows, cols] batch array cut to this micro-batch, as a tensor. */
  slice(data: Float32Array): tf.Tensor2D;
  /** Normalises by the whole mini-batch, so micro-batch losses add up to its loss. */
  aggOptions: AggOptions;
  /** Scalars to report; kept out of the gradient tape's clean-up. */
  keep(name: string, scalar: tf.Scalar): void;
}

/**
 * The optimisation skeleton shared by actor and critic: epochs of shuffled mini-batches, each
 * accumulated over micro-batches, clipped by global norm and applied as one Adam step.
 * `sumOverMicro` names the reported scalars that are themselves sums over micro-batches
 * (losses); the others are fractions, averaged by micro-batch size.
 */
async function optimise(
  model: TrainableModel,
  optimizer: Adam,
  batch: TrainingBatch,
  schedule: Schedule,
  rng: Rng,
  prefix: string,
  sumOverMicro: ReadonlySet<string>,
  lossOf: (ctx: MicroBatchContext) => tf.Scalar,
): Promise<Metrics> {
  const sums = new MetricSums();
  const names = variableNames(model);
  for (const mini of ppoMiniBatches({
    batchSize: batch.rows,
    miniBatchSize: Math.min(schedule.miniBatchSize, batch.rows),
    microBatchSize: Math.min(schedule.microBatchSize, schedule.miniBatchSize, batch.rows),
    epochs: schedule.epochs,
    rng,
  })) {
    const counts = maskCounts(batch.mask, batch.cols, mini.rows);
    if (counts.tokens === 0) continue;
    // normLength is a constant from the config, not the batch width: a longer row elsewhere in
    // the batch must not change the weight of this row's tokens.
    const aggOptions = { globalTokens: counts.tokens, globalSeqs: counts.seqs, normLength: schedule.normLength };
    const accumulated = new GradientSum();
    const miniMetrics = new MetricSums();
    const microBatches =
      schedule.packByLength === false
        ? mini.microBatches
        : packByLength(mini.rows, (r) => batch.tokens[r].length, Math.min(schedule.microBatchSize, schedule.miniBatchSize, batch.rows));
    for (const micro of microBatches) {
      const rows = micro.map((r) => batch.tokens[r]);
      const documents = micro.map((r) => batch.documents[r]);
      const width = Math.max(...rows.map((r) => r.length));
      const kept: Record<string, tf.Scalar> = {};
      const { grads, value } = tf.tidy(() =>
        tf.variableGrads(
          () =>
            lossOf({
              rows,
              documents,
              slice: (data) => tf.tensor2d(sliceRows(data, batch.cols, micro, width), [micro.length, width]),
              aggOptions,
              keep: (name, scalar) => {
                kept[name] = scalar === kept[name] ? scalar : tf.keep(scalar);
              },
            }),
          model.variables(),
        ),
      );
      accumulated.add(grads, names);
      for (const [key, scalar] of Object.entries(kept)) {
        const v = (await scalar.data())[0];
        if (scalar !== value) scalar.dispose();
        miniMetrics.add(key, sumOverMicro.has(key) ? v : v * (micro.length / mini.rows.length));
      }
      value.dispose();
    }
    const norm = await accumulated.step(optimizer, schedule.gradClip);
    for (const [key, total] of miniMetrics.totals()) sums.add(`${prefix}/${key}`, total);
    sums.add(`${prefix}/grad_norm`, norm);
  }
  return sums.means();
}

export async function updateActor(
  policy: TrainableModel,
  optimizer: Adam,
  batch: TrainingBatch,
  advantages: Float32Array,
  settings: ActorUpdateSettings,
  rng: Rng,
): Promise<Metrics> {
  const losses = new Set(['pg_loss', 'entropy', 'kl_loss']);
  return optimise(policy, optimizer, batch, settings, rng, 'actor', losses, ({ rows, documents, slice, aggOptions, keep }) => {
    const mask = slice(batch.mask);
    const scores = scoreTokens(policy, rows, { temperature: settings.temperature, logprobs: true, entropy: true, documents });
    const logp = scores.logprobs as tf.Tensor2D;
    const pg = policyLoss({
      logp,
      oldLogp: slice(batch.oldLogprobs),
      advantages: slice(advantages),
      mask,
      clipLow: settings.clipLow,
      clipHigh: settings.clipHigh,
      clipRatioC: settings.clipRatioC,
      aggMode: settings.aggMode,
      aggOptions,
    });
    const entropy = aggLoss(scores.entropy as tf.Tensor2D, mask, settings.aggMode, aggOptions);
    keep('pg_loss', pg.loss);
    keep('pg_clipfrac', pg.clipfrac);
    keep('pg_clipfrac_lower', pg.clipfracLower);
    keep('ppo_kl', pg.ppoKl);
    keep('entropy', entropy);
    let loss = pg.loss.sub(entropy.mul(settings.entropyCoeff));
    if (settings.klLoss) {
      const kl = klLoss({ logp, refLogp: slice(settings.klLoss.refLogprobs), mask, type: settings.klLoss.type, aggMode: settings.aggMode, aggOptions });
      keep('kl_loss', kl);
      loss = loss.add(kl.mul(settings.klLoss.coef));
    }
    return loss as tf.Scalar;
  });
}

export async function updateCritic(
  critic: TrainableModel,
  optimizer: Adam,
  batch: TrainingBatch,
  returns: Float32Array,
  oldValues: Float32Array,
  settings: CriticUpdateSettings,
  rng: Rng,
): Promise<Metrics> {
  return optimise(critic, optimizer, batch, settings, rng, 'critic', new Set(['vf_loss']), ({ rows, documents, slice, aggOptions, keep }) => {
    const values = scoreTokens(critic, rows, { logprobs: false, values: true, documents }).values as tf.Tensor2D;
    const vl = valueLoss({ values, oldValues: slice(oldValues), returns: slice(returns), mask: slice(batch.mask), cliprange: settings.cliprange, aggMode: settings.aggMode, aggOptions });
    keep('vf_clipfrac', vl.clipfrac);
    keep('vf_loss', vl.loss);
    return vl.loss;
  });
}

/** tf.variableGrads keys gradients by tfjs variable name; the optimizer wants parameter names. */
function variableNames(model: TrainableModel): Map<string, string> {
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
  async step(optimizer: Adam, maxNorm: number): Promise<number> {
    const clipped = await clipByGlobalNormAsync(this.sum, maxNorm);
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
