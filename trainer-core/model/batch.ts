/**
 * Packs ragged token rows into the rectangular inputs of Transformer.forward: ids, per-row
 * positions and the additive attention bias (causal, with padding keys masked). Padding never
 * changes a real token's result: masked keys get exactly zero attention weight and every row's
 * positions start at 0 at its first real token, so left- and right-padded layouts agree.
 */
import * as tf from '@tensorflow/tfjs';
import { MASKED, type ForwardInput } from './forward';

export type PadSide = 'left' | 'right';

export interface PackedRows {
  batch: number;
  time: number;
  /** [batch * time] token ids, pad columns hold padId. */
  ids: Int32Array;
  /** [batch * time] position of each column within its row (0 on pad columns). */
  positions: Int32Array;
  /** [batch * time] 1 where the column holds a real token. */
  valid: Uint8Array;
  lengths: number[];
  /** Column of each row's first real token (its pad count when left-padded). */
  starts: number[];
}

export function packRows(rows: readonly (readonly number[])[], side: PadSide, padId = 0, time?: number): PackedRows {
  if (rows.length === 0) throw new Error('Cannot pack an empty batch of token rows');
  const lengths = rows.map((row) => row.length);
  const longest = Math.max(...lengths);
  const width = time ?? longest;
  if (width < longest) throw new Error(`A row has ${longest} tokens, more than the packed width ${width}`);
  const batch = rows.length;
  const ids = new Int32Array(batch * width).fill(padId);
  const positions = new Int32Array(batch * width);
  const valid = new Uint8Array(batch * width);
  const starts: number[] = [];
  rows.forEach((row, b) => {
    const start = side === 'left' ? width - row.length : 0;
    starts.push(start);
    for (let t = 0; t < row.length; t++) {
      const at = b * width + start + t;
      ids[at] = row[t];
      positions[at] = t;
      valid[at] = 1;
    }
  });
  return { batch, time: width, ids, positions, valid, lengths, starts };
}

/**
 * Bias [batch, 1, queries, keys] for queries at key columns keys-queries .. keys-1: a query sees
 * keys at or before its own column that hold real tokens.
 */
export function attentionBias(valid: Uint8Array, batch: number, keys: number, queries: number): Float32Array {
  const bias = new Float32Array(batch * queries * keys);
  const first = keys - queries;
  for (let b = 0; b < batch; b++) {
    for (let q = 0; q < queries; q++) {
      const row = (b * queries + q) * keys;
      const column = first + q;
      for (let k = 0; k < keys; k++) {
        if (k > column || valid[b * keys + k] === 0) bias[row + k] = MASKED;
      }
    }
  }
  return bias;
}

/** Tensors for a full (no cache) forward pass over packed rows. */
export function forwardInputs(packed: PackedRows): ForwardInput {
  const { batch, time } = packed;
  return {
    tokens: tf.tensor2d(packed.ids, [batch, time], 'int32'),
    positions: tf.tensor2d(packed.positions, [batch, time], 'int32'),
    bias: tf.tensor4d(attentionBias(packed.valid, batch, time, time), [batch, 1, time, time]),
  };
}
