/**
 * What the sampler and the scorer need from a model: its sizes and one forward pass. The
 * from-scratch Transformer implements it; any other causal LM (a pretrained one) plugs into
 * sampling, prefix reuse and scoring by implementing it too.
 *
 * The KV cache a forward pass returns is opaque to callers except for its layout: per layer, k
 * and v are 4-D with the batch on axis 0 and key positions on axis 2 (any head count and width
 * on axes 1 and 3). The prefix cache slices and stacks caches along those two axes only.
 */
import type { ForwardInput, ForwardOptions, ForwardOutput, KVCache, LmHead } from './forward';

export type { ForwardInput, ForwardOptions, ForwardOutput, KVCache, LayerCache, LmHead } from './forward';

export interface LanguageModelConfig {
  vocabSize: number;
  contextLength: number;
  /** Whether forward() can produce next-token logits. */
  lmHead: boolean;
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
}
