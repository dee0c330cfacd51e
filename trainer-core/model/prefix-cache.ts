/**
 * Keys and values already computed for token prefixes, kept across the sampling calls of one
 * rollout so a multi-turn episode encodes only its new tokens (the environment's reply and the
 * next prompt) instead of the whole episode every turn.
 *
 * Exact because attention is causal: the keys and values of the first m tokens depend on those
 * m tokens only, so any common prefix of a stored row and a new prompt can be reused, whatever
 * came after it. A sliding context window simply gives a shorter common prefix (the part before
 * the window's first turn), and the rest is encoded again. The prefix every prompt of a batch
 * shares (system prompt, instructions) is encoded once and broadcast to the rows that have
 * nothing longer of their own.
 *
 * Rows are kept as a sampling call left them, in blocks of the whole batch: each row's entry
 * points at its row and first column in the block, and the next call gathers every row's past
 * columns in one gather per layer and tensor. (Per-row copies took a slice and a concatenation
 * per row, layer and tensor on both ends: tens of thousands of dispatches a turn at 128 rows of
 * a 24-layer model.) A block is freed when no entry points into it any more.
 */
import * as tf from '@tensorflow/tfjs';
import type { KVCache } from './language-model';

/**
 * Keys and values of several rows, per layer [rows, heads, columns, width], shared by the
 * entries that point into it.
 */
export class PrefixBlock {
  private refs = 0;

  constructor(readonly cache: KVCache) {}

  retain(): void {
    this.refs++;
  }

  release(): void {
    if (--this.refs > 0) return;
    for (const layer of this.cache) tf.dispose([layer.k, layer.v]);
  }
}

/** One stored prefix: its ids, held by row `row` of `block` from column `offset` on. */
export interface PrefixEntry {
  ids: readonly number[];
  block: PrefixBlock;
  row: number;
  offset: number;
}

/** Where a prompt's reusable keys and values come from, and how many of its tokens they cover. */
export interface PrefixMatch {
  entry: PrefixEntry;
  length: number;
}

/** A row of a block to store: under `key`, its `ids` from column `offset` of block row `row`. */
export interface StoredRow {
  key: number;
  ids: readonly number[];
  row: number;
  offset: number;
}

/** Shared prefixes shorter than this are not worth a separate forward pass. */
const MIN_SHARED = 4;

export class PrefixCache {
  private readonly rows = new Map<number, PrefixEntry>();
  private shared: PrefixEntry | null = null;

  /** `shareAcrossRows: false` keeps per-row reuse only. */
  constructor(readonly shareAcrossRows = true) {}

  /** The longest stored prefix of `prompt` for this row, its own or the batch's shared one. */
  match(key: number, prompt: readonly number[]): PrefixMatch | null {
    let best: PrefixMatch | null = null;
    for (const entry of [this.rows.get(key), this.shared]) {
      if (!entry) continue;
      const length = commonPrefix(entry.ids, prompt);
      if (length > 0 && (!best || length > best.length)) best = { entry, length };
    }
    return best;
  }

  /**
   * The prefix every prompt shares, when some row would reuse less than it: the sampler encodes it
   * once (batch of one) and stores it with setShared. Null when there is nothing worth encoding.
   */
  sharedPrefixToEncode(keys: readonly number[], prompts: readonly (readonly number[])[]): number[] | null {
    if (!this.shareAcrossRows || prompts.length < 2) return null;
    let length = Math.min(...prompts.map((p) => p.length)) - 1;
    for (const prompt of prompts) length = Math.min(length, commonPrefix(prompts[0], prompt));
    if (length < MIN_SHARED) return null;
    if (this.shared && commonPrefix(this.shared.ids, prompts[0]) >= length) return null;
    const needs = prompts.some((prompt, i) => (this.match(keys[i], prompt)?.length ?? 0) < length);
    return needs ? prompts[0].slice(0, length) : null;
  }

  /** The batch's shared prefix: `cache` is [1, heads, ids.length, width] per layer; the cache takes ownership. */
  setShared(ids: readonly number[], cache: KVCache): void {
    const block = new PrefixBlock(cache);
    block.retain();
    if (this.shared) this.shared.block.release();
    this.shared = { ids, block, row: 0, offset: 0 };
  }

  /**
   * Stores (replacing) the prefixes of a sampling call's rows, all held by `cache` (per layer
   * [rows, heads, columns, width]), which the cache takes ownership of.
   */
  storeBlock(cache: KVCache, rows: readonly StoredRow[]): void {
    const block = new PrefixBlock(cache);
    // Held while the rows are placed, so a block no row keeps is freed at the end, not before.
    block.retain();
    for (const { key, ids, row, offset } of rows) {
      block.retain();
      this.rows.get(key)?.block.release();
      this.rows.set(key, { ids, block, row, offset });
    }
    block.release();
  }

  /** Drops a row whose episode ended. */
  forget(key: number): void {
    this.rows.get(key)?.block.release();
    this.rows.delete(key);
  }

  dispose(): void {
    for (const entry of this.rows.values()) entry.block.release();
    this.rows.clear();
    this.shared?.block.release();
    this.shared = null;
  }
}

/**
 * The past columns of a batch, per layer [batch, heads, past, width]: row b's last `length`
 * columns hold the first `length` stored columns of its entry, right-aligned; its columns before
 * them are masked by the caller's bias and hold any stored column (a masked key's weight is
 * exactly zero whatever it holds). One gather per layer and tensor, from the blocks the rows'
 * entries point into (concatenated first where there are several). Creates tensors: call in tf.tidy.
 */
export function gatherPast(rows: ReadonlyArray<{ entry: PrefixEntry | null; length: number }>, past: number): KVCache {
  const blocks = [...new Set(rows.flatMap(({ entry, length }) => (entry && length > 0 ? [entry.block] : [])))];
  if (blocks.length === 0) throw new Error('gatherPast needs at least one row with a stored prefix');
  const layers = blocks[0].cache.length;
  const indicesByShape = new Map<string, tf.Tensor1D>();
  /** Flat row index, in the concatenated [sum of rows x heads x columns, width] blocks, of each output row. */
  const indices = (heads: number, shapes: number[][]): tf.Tensor1D => {
    const key = `${heads}:${shapes.map((s) => s.join('x')).join(',')}`;
    let found = indicesByShape.get(key);
    if (found) return found;
    const bases: number[] = [];
    let base = 0;
    for (const [blockRows, , columns] of shapes) {
      bases.push(base);
      base += blockRows * heads * columns;
    }
    const out = new Int32Array(rows.length * heads * past);
    rows.forEach(({ entry, length }, b) => {
      const used = entry ? Math.max(0, length) : 0;
      const source = used > 0 ? blocks.indexOf(entry!.block) : -1;
      const columns = source >= 0 ? shapes[source][2] : 0;
      for (let h = 0; h < heads; h++) {
        const at = (b * heads + h) * past;
        if (source < 0) continue; // every column masked: flat row 0 of the first block
        const rowStart = bases[source] + (entry!.row * heads + h) * columns + entry!.offset;
        for (let c = past - used; c < past; c++) out[at + c] = rowStart + c - (past - used);
        // The masked columns repeat the row's first stored column.
        out.fill(rowStart, at, at + past - used);
      }
    });
    found = tf.tensor1d(out, 'int32');
    indicesByShape.set(key, found);
    return found;
  };
  const gather = (parts: tf.Tensor4D[]): tf.Tensor4D => {
    const [, heads, , width] = parts[0].shape;
    const flat = parts.map((p) => p.reshape([-1, width]));
    const source = flat.length === 1 ? flat[0] : tf.concat(flat, 0);
    return tf.gather(source, indices(heads, parts.map((p) => p.shape))).reshape([rows.length, heads, past, width]);
  };
  const out: KVCache = [];
  for (let i = 0; i < layers; i++) {
    out.push({ k: gather(blocks.map((block) => block.cache[i].k)), v: gather(blocks.map((block) => block.cache[i].v)) });
  }
  return out;
}

export function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
