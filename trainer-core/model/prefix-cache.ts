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
 */
import * as tf from '@tensorflow/tfjs';
import type { KVCache } from './language-model';

/** One stored prefix: its ids and, per layer, keys and values of shape [1, heads, ids.length, width]. */
export interface PrefixEntry {
  ids: readonly number[];
  cache: KVCache;
}

/** Where a prompt's reusable keys and values come from, and how many of its tokens they cover. */
export interface PrefixMatch {
  entry: PrefixEntry;
  length: number;
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

  setShared(entry: PrefixEntry): void {
    if (this.shared) disposeEntry(this.shared);
    this.shared = entry;
  }

  /** Stores (replacing) the prefix a row has computed; the cache takes ownership of the tensors. */
  store(key: number, entry: PrefixEntry): void {
    const previous = this.rows.get(key);
    if (previous) disposeEntry(previous);
    this.rows.set(key, entry);
  }

  /** Drops a row whose episode ended. */
  forget(key: number): void {
    const previous = this.rows.get(key);
    if (previous) disposeEntry(previous);
    this.rows.delete(key);
  }

  dispose(): void {
    for (const entry of this.rows.values()) disposeEntry(entry);
    this.rows.clear();
    if (this.shared) disposeEntry(this.shared);
    this.shared = null;
  }
}

function disposeEntry(entry: PrefixEntry): void {
  for (const layer of entry.cache) tf.dispose([layer.k, layer.v]);
}

export function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
