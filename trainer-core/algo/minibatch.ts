import type { Rng } from '../rng';

/** One optimizer step's worth of sequences, split into micro-batches for gradient accumulation. */
export interface MiniBatch {
  epoch: number;
  /** Position of this mini-batch within its epoch. */
  index: number;
  /** Sequence (row) indices into the full batch. */
  rows: number[];
  /** rows split into consecutive chunks of at most microBatchSize. */
  microBatches: number[][];
}

export interface PpoScheduleOptions {
  /** Sequences in the batch (B). */
  batchSize: number;
  /** ppo_mini_batch_size: sequences per optimizer step. */
  miniBatchSize: number;
  /** Sequences per forward/backward pass; defaults to miniBatchSize (no accumulation). */
  microBatchSize?: number;
  /** ppo_epochs: passes over the batch. Default 1. */
  epochs?: number;
  /** Reshuffles the sequences before every epoch; consumed in order, so the plan is reproducible. */
  rng: Rng;
  /** Default true. false keeps the batch order (e.g. for debugging). */
  shuffle?: boolean;
}

function checkPositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer, got ${value}`);
}

/** Consecutive chunks of at most `size`; the last one holds the remainder. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  checkPositiveInteger('chunk size', size);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Yields the mini-batches of every PPO epoch in order. The batch size need not divide evenly
 * (filtering can drop groups), so an epoch's last mini-batch and a mini-batch's last micro-batch
 * may be smaller.
 */
export function* ppoMiniBatches(options: PpoScheduleOptions): Generator<MiniBatch> {
  const { batchSize, miniBatchSize, microBatchSize = miniBatchSize, epochs = 1, rng, shuffle = true } = options;
  if (!Number.isInteger(batchSize) || batchSize < 0) throw new RangeError(`batch size must be a non-negative integer, got ${batchSize}`);
  checkPositiveInteger('ppo_mini_batch_size', miniBatchSize);
  checkPositiveInteger('micro batch size', microBatchSize);
  checkPositiveInteger('ppo_epochs', epochs);
  if (microBatchSize > miniBatchSize) {
    throw new RangeError(`micro batch size (${microBatchSize}) is larger than ppo_mini_batch_size (${miniBatchSize}); make it at most the mini-batch size`);
  }
  for (let epoch = 0; epoch < epochs; epoch++) {
    const order = Array.from({ length: batchSize }, (_, i) => i);
    if (shuffle) rng.shuffle(order);
    let index = 0;
    for (const rows of chunk(order, miniBatchSize)) {
      yield { epoch, index: index++, rows, microBatches: chunk(rows, microBatchSize) };
    }
  }
}

/** The whole schedule as an array (same order as ppoMiniBatches). */
export function planPpoMiniBatches(options: PpoScheduleOptions): MiniBatch[] {
  return [...ppoMiniBatches(options)];
}

/** Copies the given rows of a row-major [B, cols] array into a new [rows.length, cols] array. */
export function gatherRows(data: Float32Array, cols: number, rows: readonly number[]): Float32Array {
  const out = new Float32Array(rows.length * cols);
  rows.forEach((r, k) => {
    if (!Number.isInteger(r) || r < 0 || (r + 1) * cols > data.length) {
      throw new RangeError(`row ${r} is outside the batch of ${Math.floor(data.length / Math.max(cols, 1))} rows`);
    }
    out.set(data.subarray(r * cols, (r + 1) * cols), k * cols);
  });
  return out;
}

/**
 * Generated-token and non-empty-sequence counts of a set of rows: pass them as the AggOptions
 * globalTokens / globalSeqs of each micro-batch so accumulated micro-batch losses equal the
 * loss of the whole mini-batch.
 */
export function maskCounts(mask: Float32Array, cols: number, rows: readonly number[]): { tokens: number; seqs: number } {
  let tokens = 0;
  let seqs = 0;
  for (const r of rows) {
    let rowTokens = 0;
    for (let t = 0; t < cols; t++) rowTokens += mask[r * cols + t];
    tokens += rowTokens;
    if (rowTokens > 0) seqs++;
  }
  return { tokens, seqs };
}
