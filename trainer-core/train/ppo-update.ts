import * as tf from '@tensorflow/tfjs';
import { maskCounts, ppoMiniBatches } from '../algo/minibatch';
import type { KlType } from '../algo/kl';
import type { LossAggMode } from '../algo/losses';
import type { Adam } from '../model/adam';
import { scoreTokens, type ScoreOptions } from '../model/scoring';
import type { LanguageModel } from '../model/language-model';
import type { TrainableModel } from '../model/trainable-model';
import type { Rng } from '../rng';
import { contiguousBlocks } from '../workers/worker-pool';
import { sliceRows, scatterRows, type TrainingBatch } from './batch';
import { LOSS_ARRAYS, SUMMED_SCALARS, type LossSpec, type MicroBatch } from '../model/micro-batch-loss';
import { scoredRows } from '../model/backend-memory';
import { phaseCount } from '../model/phase-profile';
import { forEachMicroBatchGradient, GradientSum, type Parallel } from './micro-batch-runner';

export type { Parallel };

/**
 * The update half of a PPO iteration: forward passes that score the batch, and the actor and
 * critic optimisation over mini-batches, micro-batches and epochs. With worker threads
 * (`Parallel`), each pass's chunks and each mini-batch's micro-batches are split into contiguous
 * blocks, the first computed here and the others by the workers, and read back in order: the
 * gradient is summed in the same order as on one thread, so it is the same.
 */

/** Scores every row of the batch in chunks; returns [rows, cols] arrays. */
export async function scoreBatch(
  model: LanguageModel,
  batch: TrainingBatch,
  options: Pick<ScoreOptions, 'temperature' | 'logprobs' | 'values'> & { chunk: number },
  parallel?: Parallel,
): Promise<{ logprobs?: Float32Array; values?: Float32Array }> {
  const size = batch.rows * batch.cols;
  const logprobs = options.logprobs ? new Float32Array(size) : undefined;
  const values = options.values ? new Float32Array(size) : undefined;
  // A row's scores do not depend on the other rows of its pass, so rows of similar length go
  // together: far less padding, and more rows per pass where rows are short.
  const chunks = packByLength(range(0, batch.rows), (r) => batch.tokens[r].length, options.chunk);
  const place = (rowIds: number[], scores: { logprobs?: Float32Array; values?: Float32Array }, width: number) => {
    if (logprobs && scores.logprobs) scatterRows(logprobs, batch.cols, rowIds, scores.logprobs, width);
    if (values && scores.values) scatterRows(values, batch.cols, rowIds, scores.values, width);
  };
  const blocks = contiguousBlocks(chunks.length, parallel ? parallel.pool.size + 1 : 1);
  const settings = { temperature: options.temperature, logprobs: options.logprobs === true, values: options.values };
  const remote = blocks.slice(1).map(([start, end], i) =>
    (parallel as Parallel).pool.thread(i).call({
      type: 'score',
      role: (parallel as Parallel).role,
      settings,
      jobs: chunks.slice(start, end).map((rowIds) => ({ rows: rowIds.map((r) => batch.tokens[r]), documents: rowIds.map((r) => batch.documents[r]), scored: rowIds.map((r) => scoredColumns(batch, r)) })),
    }),
  );
  remote.forEach((p) => p.catch(() => {}));
  for (const rowIds of chunks.slice(blocks[0][0], blocks[0][1])) {
    const rows = rowIds.map((r) => batch.tokens[r]);
    const documents = rowIds.map((r) => batch.documents[r]);
    const scored = rowIds.map((r) => scoredColumns(batch, r));
    const width = Math.max(...rows.map((r) => r.length));
    phaseCount('passes', 1);
    phaseCount('columns', rows.length * width);
    const scores = scoredRows(() => ({ ...scoreTokens(model, rows, { ...options, documents, scored }) }) as tf.NamedTensorMap, rows.length, width);
    // Read back asynchronously: WebGPU under Node has no synchronous read.
    place(
      rowIds,
      {
        logprobs: scores.logprobs ? ((await scores.logprobs.data()) as Float32Array) : undefined,
        values: scores.values ? ((await scores.values.data()) as Float32Array) : undefined,
      },
      width,
    );
    tf.dispose(Object.values(scores));
  }
  for (let i = 0; i < remote.length; i++) {
    const results = await remote[i];
    results.forEach((scores, j) => place(chunks[blocks[i + 1][0] + j], scores, scores.width));
  }
  return { logprobs, values };
}

/** Row r's loss-mask columns: only those logprobs are read (reference logprobs are masked), so the LM head runs there only. */
function scoredColumns(batch: TrainingBatch, r: number): Float32Array {
  return batch.mask.slice(r * batch.cols, r * batch.cols + batch.tokens[r].length);
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
  klLoss: { coef: number; type: KlType; refLogprobs: Float32Array } | null;
  /** The policy's value head fitted to these returns beside the policy loss, when on (aux_value_coef). */
  auxValue?: { coef: number; returns: Float32Array } | null;
  /** See Schedule.packByLength; default true. */
  packByLength?: boolean;
  /** Recompute each layer's activations in the backward pass (gradient checkpointing); default false. */
  checkpointLayers?: boolean;
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
  checkpointLayers?: boolean;
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

/**
 * The optimisation skeleton shared by actor and critic: epochs of shuffled mini-batches, each
 * accumulated over micro-batches, clipped by global norm and applied as one Adam step. Fractions
 * among the reported scalars are averaged by micro-batch size; losses (SUMMED_SCALARS) add up.
 */
async function optimise(
  model: TrainableModel,
  optimizer: Adam,
  batch: TrainingBatch,
  arrays: Record<string, Float32Array>,
  schedule: Schedule,
  rng: Rng,
  spec: LossSpec,
  parallel?: Parallel,
): Promise<Metrics> {
  const sums = new MetricSums();
  const summed = SUMMED_SCALARS[spec.role];
  const needed = LOSS_ARRAYS[spec.role](spec);
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
    const micros: MicroBatch[] = microBatches.map((micro) => {
      const width = Math.max(...micro.map((r) => batch.tokens[r].length));
      return {
        rows: micro.map((r) => batch.tokens[r]),
        documents: micro.map((r) => batch.documents[r]),
        width,
        arrays: Object.fromEntries(needed.map((name) => [name, sliceRows(arrays[name], batch.cols, micro, width)])),
        aggOptions,
      };
    });
    phaseCount('mini-batches', 1);
    phaseCount('micro-batches', micros.length);
    phaseCount('columns', micros.reduce((sum, m) => sum + m.rows.length * m.width, 0));
    phaseCount('trained tokens', counts.tokens);
    await forEachMicroBatchGradient(model, micros, spec, parallel, (result, i) => {
      accumulated.add(result.grads);
      for (const [key, v] of Object.entries(result.scalars)) miniMetrics.add(key, summed.has(key) ? v : v * (micros[i].rows.length / mini.rows.length));
    });
    const norm = await accumulated.step(optimizer, schedule.gradClip);
    if (parallel) await parallel.pool.syncWeights(parallel.role, model);
    for (const [key, total] of miniMetrics.totals()) sums.add(`${spec.role}/${key}`, total);
    sums.add(`${spec.role}/grad_norm`, norm);
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
  parallel?: Parallel,
): Promise<Metrics> {
  const arrays: Record<string, Float32Array> = { mask: batch.mask, oldLogprobs: batch.oldLogprobs, advantages };
  if (settings.klLoss) arrays.refLogprobs = settings.klLoss.refLogprobs;
  if (settings.auxValue) arrays.returns = settings.auxValue.returns;
  const spec: LossSpec = {
    role: 'actor',
    settings: {
      temperature: settings.temperature,
      clipLow: settings.clipLow,
      clipHigh: settings.clipHigh,
      clipRatioC: settings.clipRatioC,
      aggMode: settings.aggMode,
      entropyCoeff: settings.entropyCoeff,
      klLoss: settings.klLoss ? { coef: settings.klLoss.coef, type: settings.klLoss.type } : null,
      auxValue: settings.auxValue ? { coef: settings.auxValue.coef } : null,
      checkpointLayers: settings.checkpointLayers ?? false,
    },
  };
  return optimise(policy, optimizer, batch, arrays, settings, rng, spec, parallel);
}

export async function updateCritic(
  critic: TrainableModel,
  optimizer: Adam,
  batch: TrainingBatch,
  returns: Float32Array,
  oldValues: Float32Array,
  settings: CriticUpdateSettings,
  rng: Rng,
  parallel?: Parallel,
): Promise<Metrics> {
  const spec: LossSpec = { role: 'critic', settings: { cliprange: settings.cliprange, aggMode: settings.aggMode, checkpointLayers: settings.checkpointLayers ?? false } };
  return optimise(critic, optimizer, batch, { mask: batch.mask, oldValues, returns }, settings, rng, spec, parallel);
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
