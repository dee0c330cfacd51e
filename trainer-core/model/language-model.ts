/**
 * What the sampler and the scorer need from a model: its sizes and one forward pass. The
 * from-scratch Transformer implements it; any other causal LM (a pretrained one) plugs into
 * sampling, prefix reuse and scoring by implementing it too.
 *
 * The KV cache a forward pass returns is opaque to callers except for its layout: per layer, k
 * and v are 4-D with the batch on axis 0 and key positions on axis 2 (any head count and width
 * on axes 1 and 3). The prefix cache slices and stacks caches along those two axes only.
 */
import type * as tf from '@tensorflow/tfjs';
import type { ForwardInput, ForwardOptions, ForwardOutput, KVCache, LmHead } from './forward';

export type { ForwardInput, ForwardOptions, ForwardOutput, KVCache, LayerCache, LmHead } from './forward';

export interface LanguageModelConfig {
  vocabSize: number;
  contextLength: number;
  /** Whether forward() can produce next-token logits. */
  lmHead: boolean;
}

/** What a rollout's decoding on the device is set up with (see LanguageModel.startDecoding). */
export interface DecodingSpec {
  /** The prompt's keys and values per layer [batch, kvHeads, prompt columns, headDim], read in place. */
  promptCache: KVCache;
  /** Tokens each row may be fed after the prompt: the reply cache's columns, allocated once. */
  columns: number;
  /** Additive attention bias [batch, prompt columns + columns] of every key the rollout reaches. */
  bias: Float32Array;
}

/** A rollout's decoding state on the device: a KV cache written in place, one step per call. */
export interface DecodingSession {
  /**
   * Feeds each row the id in column 0 of ids [batch, k] (float: a sampled-ids tensor as the
   * sampling kernel wrote it) at positions [batch] (int32), and returns the next logits
   * [batch, vocab]. Creates intermediate tensors: call inside tf.tidy. The logits may live in
   * the session's own buffer (a recorded step, webgpu/step-recorder.ts), which the next step
   * overwrites: use or read them before it (dispose them whenever).
   */
  step(ids: tf.Tensor2D, positions: tf.Tensor1D): tf.Tensor2D;
  /** The reply's keys and values fed so far, per layer [batch, kvHeads, fed, headDim] (new tensors). */
  replyCache(): KVCache;
  /** Tokens per row and sampling on the device: [batch, 2] of id and log-probability. */
  sample(logits: tf.Tensor2D, draws: tf.Tensor1D, temperature: number, greedy: boolean, topK?: number, topP?: number): tf.Tensor2D;
  /** Starts the work recorded so far on the device (a step queued ahead of a read). */
  flush(): void;
  dispose(): void;
}

export interface LanguageModel {
  readonly config: LanguageModelConfig;
  /**
   * Creates intermediate tensors: call inside tf.tidy (or a gradient function). Must honour
   * every ForwardInput field: the sampler decodes with `cache` (grown and returned) after
   * `frozenCache` (the prompt's keys and values, read in place and not returned).
   */
  forward(input: ForwardInput, options?: ForwardOptions): ForwardOutput;
  /**
   * Optional: returns the cache with whatever makes reading it as `frozenCache` cheaper (extra
   * tensors on each layer, which the caller disposes with it). It must not change any result.
   */
  prepareFrozenCache?(cache: KVCache): KVCache;
  /** The LM head, for scoring that applies it only where tokens are scored. */
  lmHead?(): LmHead;
  /**
   * Optional: a decoding session on the device for `batch` rows (null where the backend or the
   * shape has no such path; the sampler then decodes through forward()).
   */
  startDecoding?(batch: number, spec: DecodingSpec): DecodingSession | null;
}
