/**
 * The forward-pass interface every language model in TurnLab implements (TurnLab's own
 * Transformer and the Hugging Face decoders): token ids, per-row positions, an additive
 * attention bias and a KV cache in; logits, values, final hidden states and the cache out.
 */
import type * as tf from '@tensorflow/tfjs';
import type { KVCache } from './blocks/attention';
import type { HalfMatrix } from './half-matrix';

export type { KVCache, LayerCache } from './blocks/attention';

export interface ForwardInput {
  /** int32 [batch, time]. */
  tokens: tf.Tensor2D;
  /** int32 [batch, time]: position of each token within its own row. */
  positions: tf.Tensor2D;
  /** Additive attention bias [batch, 1, time, past + time]: 0 where allowed, a large negative elsewhere. */
  bias: tf.Tensor4D;
  /** Keys/values of earlier positions (incremental decoding); the returned cache extends it. */
  cache?: KVCache;
  /**
   * Keys/values of positions before `cache` that are read but never copied: the returned cache
   * holds only `cache` and the new positions. A sampler passes the prompt's keys here and grows
   * only the reply's own cache, token by token, instead of copying the whole prompt's keys and
   * values at every step. Inference only: its attention uses plain matmuls, whose gradients are
   * slow on wasm.
   */
  frozenCache?: KVCache;
}

export interface ForwardOptions {
  logits?: boolean;
  values?: boolean;
  /** Return the final (normalised) hidden states, the LM head's input: scoring applies the head itself. */
  hidden?: boolean;
  /** Return the updated KV cache (prefill and decoding steps). */
  returnCache?: boolean;
  /** Compute outputs only for the last position of each row (decoding). */
  lastPositionOnly?: boolean;
  /**
   * Recompute each layer's activations in the backward pass instead of keeping them (gradient
   * checkpointing): activation memory of one layer, not of all, for about one more forward pass.
   */
  checkpointLayers?: boolean;
}

export interface ForwardOutput {
  /** [batch, time, vocab], or [batch, 1, vocab] with lastPositionOnly. */
  logits?: tf.Tensor3D;
  /** [batch, time], or [batch, 1]. */
  values?: tf.Tensor2D;
  /** [batch, time, width], or [batch, 1, width]. */
  hidden?: tf.Tensor3D;
  cache?: KVCache;
}

/**
 * The LM head as scoring applies it: logits = hidden @ weight ([width, vocab]) or, for
 * `vocabMajor`, hidden @ weight^T (weight [vocab, width], a tied embedding table). A frozen
 * head (LoRA) gets no gradient. A 16-bit head (`half`, [vocab, width]) is always frozen.
 */
export type LmHead = { weight: tf.Tensor2D; vocabMajor: boolean; trainable: boolean } | { half: HalfMatrix; trainable: false };

/** Large enough that exp() of it is exactly 0 in float32, small enough to stay finite. */
export const MASKED = -1e9;
