/**
 * Fused kernels by backend: the decoder blocks ask here whether the active backend has a fused
 * version of a step, and run the tfjs reference when it has none. Backends register their
 * kernels when they start (see webgpu/install.ts); `setFusedKernels(false)` (or the environment
 * variable TURNLAB_FUSED_KERNELS=0) turns them all off, which is how the reference is compared
 * and how a benchmark measures before and after.
 */
import * as tf from '@tensorflow/tfjs';
import type { LayerCache, Rotation } from './blocks/tensor-shapes';

export type DecodeLinearForm = 'single' | 'qkv' | 'gated';

export interface DecodeLinearInputs {
  x: tf.Tensor2D;
  /** One weight [in, out] (single), three (qkv: q, k, v) or two (gated: gate, then up). */
  weights: tf.Tensor2D[];
  /** [out] (single) or [q + k + v] packed (qkv). */
  bias?: tf.Tensor;
  /** A [in, segments * rank] and B [rank, every weight's columns], each packed along its columns. */
  lora?: { a: tf.Tensor2D; b: tf.Tensor2D; scale: number };
  /** Added to the output (single form): the block's residual stream. */
  residual?: tf.Tensor2D;
  /**
   * RMSNorm of x first, x / sqrt(mean(x^2) + eps) * weight (the decoder's norm before q|k|v, the
   * MLP and the head): the tiled kernel folds it in (the gain as x is staged, 1/rms per row at
   * the end), one dispatch fewer.
   */
  norm?: {
    weight: tf.Tensor;
    eps: number;
    /** The gain is also stored after `bias`'s columns (one binding fewer: WebGPU grants a shader 8 buffers). */
    afterBias?: boolean;
  };
  /** ReLU after the bias (single form; GPT-2-style MLP). */
  relu?: boolean;
  /** The one weight given as [out, in] (single form; a tied LM head read from a [vocab, width] table). */
  transposed?: boolean;
  /**
   * `weights` are the products x W already formed ([rows, columns] each, by a tiled matmul): the
   * kernel adds the bias, the LoRA term, the gate, ReLU and residual to them.
   */
  precomputed?: boolean;
}

/**
 * What a decoding step that never leaves the GPU is made of (see hf/decode-session.ts): one
 * dispatch each, inference only, for at most maxRows rows and head dimensions up to maxHeadDim.
 */
export interface DecodingKernels {
  maxRows: number;
  maxHeadDim: number;
  /** Most LoRA columns (segments x rank) one linear layer may have. */
  maxLoraColumns: number;
  /** single: x W (+ bias) (+ s (x A) B) (+ residual); qkv: the three packed; gated: silu(gate) * up. */
  linear(form: DecodeLinearForm, inputs: DecodeLinearInputs): tf.Tensor2D | null;
  /** A zeroed reply cache [2 * batch (keys, then values), kvHeads, columns, headDim]. */
  allocateReplyCache(batch: number, kvHeads: number, columns: number, headDim: number): tf.Tensor;
  /**
   * Stores the rotated k and the v of each row's new token (from packed qkv) at `column`, in
   * place. freq: the rotary frequencies [headDim / 2], followed by k's qk-norm weights
   * [headDim] where the model has them (normalised with `eps`).
   */
  writeReplyCache(cache: tf.Tensor, qkv: tf.Tensor2D, positions: tf.Tensor, freq: tf.Tensor, column: number, qColumns: number, eps?: number, rotate?: boolean): void;
  /**
   * The new token's attention over the frozen prompt cache and the first `used` reply columns:
   * [batch, heads * headDim]; freq as for writeReplyCache, with q's qk-norm weights.
   */
  attend(qkv: tf.Tensor2D, positions: tf.Tensor, freq: tf.Tensor, cache: tf.Tensor, bias: tf.Tensor2D, frozen: LayerCache, heads: number, used: number, eps?: number, rotate?: boolean): tf.Tensor2D;
  /** Embedding columns at the ids in column 0 of ids [batch, k] (float). */
  embed(table: tf.Tensor, ids: tf.Tensor2D): tf.Tensor2D;
  /** Rows of table [vocab, width] at those ids, plus rows of a learned position table at positions [batch]. */
  embedRows(table: tf.Tensor, ids: tf.Tensor2D, positionTable?: tf.Tensor, positions?: tf.Tensor): tf.Tensor2D;
  /**
   * Attention with its gradient straight from a packed projection qkv [batch * time, 3 * width]
   * (as many key/value heads as query heads, nothing rotated) under bias [batch, 1, time, time]:
   * the heads merged, [batch * time, width]; null outside the kernel's shapes.
   */
  trainingAttention?(qkv: tf.Tensor2D, bias: tf.Tensor4D, heads: number): tf.Tensor2D | null;
  /** The backend's matmul reads a transposed operand in place (no transpose dispatch; blocks/linear.ts). */
  transposedProducts?: boolean;
  /** The sum of the squares of every entry of the tensors, [1] (a gradient's global norm, squared). */
  sumOfSquares?(tensors: tf.Tensor[]): tf.Tensor;
  /** LayerNorm over the last axis of x [rows, width]: centred, scaled to unit variance, gain and bias. */
  layerNorm(x: tf.Tensor2D, gain: tf.Tensor, bias: tf.Tensor, eps: number): tf.Tensor2D;
  /**
   * [batch, 2]: a token per row (inverse CDF with draws [batch], or argmax) and its log-probability;
   * with topK > 0 or topP < 1, drawn from the tokens the CPU sampler would keep (in id order).
   */
  sample(logits: tf.Tensor2D, draws: tf.Tensor1D, temperature: number, greedy: boolean, topK?: number, topP?: number): tf.Tensor2D;
  /** Starts the work recorded so far on the device (a step queued ahead of a read). */
  flush(): void;
  /** Runs `record` (a decoding step's dispatches) under the backend's recording settings. */
  recordStep<T>(record: () => T): T;
  /**
   * Runs `run(inputs)` (a rollout's first decoding step on its ids and positions, or a sampling
   * on its draws) and records it for the rollout's later ones (null where it cannot, or
   * recording is off): see webgpu/step-recorder.ts.
   */
  captureCall?(run: (inputs: tf.Tensor[]) => tf.Tensor, inputs: tf.Tensor[]): { output: tf.Tensor; recorded: RecordedDecodingStep | null };
}

/**
 * A decoding step (or a sampling) recorded once; replay runs it again on new inputs (its output
 * valid until the next replay), or returns null for "run it through tfjs".
 */
export interface RecordedDecodingStep {
  replay(inputs: tf.Tensor[], stepsSinceCapture: number): tf.Tensor | null;
  /** Whether `tensor` is on this recording's output buffer. */
  produced(tensor: tf.Tensor): boolean;
  dispose(): void;
}

/** The LM head's scoring statistics over a chunk of raw logits z [rows, vocab] (see chunked-head.ts). */
export interface HeadScoreKernels {
  /** [rows, 3]: log-sum-exp of z / T, the target's logprob, the entropy. */
  statistics(z: tf.Tensor2D, ids: tf.Tensor1D, temperature: number): tf.Tensor2D;
  /** d/dz of dy[:, 0] * logprob + dy[:, 1] * entropy, from z and those statistics (z may be overwritten: pass fresh logits). */
  gradient(z: tf.Tensor2D, stats: tf.Tensor2D, ids: tf.Tensor1D, dy: tf.Tensor2D, temperature: number): tf.Tensor2D;
  /** Logit elements per chunk that suit this device. */
  chunkElements(): number;
}

/**
 * The softmax of an LM head's raw logits a row at a time (wasm: head-softmax.ts), for a frozen
 * head: its scores' gradients with respect to the logits come out of the forward pass, so the
 * backward pass needs neither the logits again nor their product.
 */
export interface HeadSoftmaxKernels {
  /** (log-sum-exp, logprob, entropy) [rows, 3] of z / T; with gradients, the last two's gradients [rows, vocab] (z's buffer becomes dEntropy). */
  scores(z: tf.Tensor2D, ids: tf.Tensor1D, temperature: number, gradients: boolean): { scores: tf.Tensor2D; dLogprob?: tf.Tensor2D; dEntropy?: tf.Tensor2D };
  /** [token, logprob] per row of logits, drawn at draws[b] (negative: skipped) or greedy. */
  sample(logits: tf.Tensor, rows: number, vocab: number, draws: Float32Array, temperature: number, greedy: boolean): Float32Array;
}

/** One Adam step's constants (see adam.ts): the bias-corrected step size and the decay lr * wd. */
export interface AdamStep {
  beta1: number;
  beta2: number;
  epsilon: number;
  stepSize: number;
  decay: number;
  /** Multiplies the gradient first (global-norm clipping). */
  gradScale: number;
}

/** Adam on the device, the moments of every parameter in one flat tensor [every m | every v]. */
export interface FusedAdam {
  /** Zeroed moments of parameters of these sizes; null where they are too large for one buffer. */
  allocateMoments(sizes: number[]): tf.Variable | null;
  /** One step of `params` (a null gradient: left as it is), moments included, in place. */
  step(params: tf.Variable[], grads: Array<tf.Tensor | null>, moments: tf.Variable, step: AdamStep): void;
}

export interface FusedKernels {
  /** Adam's update in place, its moments held in one flat tensor (no gradient recorded). */
  adam?: FusedAdam;
  headScores?: HeadScoreKernels;
  headSoftmax?: HeadSoftmaxKernels;
  /** A whole decoding step on the device (the KV cache written in place, sampling included). */
  decoding?: DecodingKernels;
  /**
   * Attention with its gradient straight from a packed projection qkv [batch * time, 3 * width]
   * (as many key/value heads as query heads, nothing rotated) under bias [batch, 1, time, time]:
   * the heads merged, [batch * time, width]; null outside the kernel's shapes.
   */
  trainingAttention?(qkv: tf.Tensor2D, bias: tf.Tensor4D, heads: number): tf.Tensor2D | null;
  /** The backend's matmul reads a transposed operand in place (no transpose dispatch; blocks/linear.ts). */
  transposedProducts?: boolean;
  /** The sum of the squares of every entry of the tensors, [1] (a gradient's global norm, squared). */
  sumOfSquares?(tensors: tf.Tensor[]): tf.Tensor;
  /** LayerNorm over the last axis of x [rows, width] (centred, unit variance, gain and bias), with its gradient. */
  layerNorm?(x: tf.Tensor2D, gain: tf.Tensor, bias: tf.Tensor, eps: number): tf.Tensor2D;
  /** x / sqrt(mean(x^2) + eps) * weight over the last axis, with its gradient. */
  rmsNorm?(x: tf.Tensor, weight: tf.Tensor, eps: number): tf.Tensor;
  /** Rotary positions of [batch, heads, time, headDim] by angles [batch, 1, time, headDim/2], with its gradient. */
  rotate?(x: tf.Tensor4D, rotation: Rotation): tf.Tensor4D | null;
  /**
   * Softmax attention of queries q [batch, heads, time, dim] (unscaled; time 1 when decoding)
   * over the keys and values [batch, kvHeads, keys, dim] of `frozen` (if any) followed by k, v,
   * with an additive bias [batch, 1, time, all keys] that holds any causal mask; returns
   * [batch, time, heads, dim] (the heads merged), or null where the shape is outside what the
   * kernel handles. Inference only (no gradient).
   */
  decodeAttention?(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, bias: tf.Tensor4D, frozen?: LayerCache): tf.Tensor4D | null;
  /**
   * x @ w (+ bias) (+ scale (x a) b) for the few rows of a decoding step; null where the rows
   * are too many for the kernel. Inference only.
   */
  linear?(x: tf.Tensor2D, w: tf.Tensor2D, bias?: tf.Tensor, lora?: { a: tf.Tensor2D; b: tf.Tensor2D; scale: number }): tf.Tensor2D | null;
  /** silu(gate) * up, with its gradient. */
  swiglu?(gate: tf.Tensor, up: tf.Tensor): tf.Tensor;
}

const registry = new Map<string, FusedKernels>();
let enabled = process.env.TURNLAB_FUSED_KERNELS !== '0';

export function registerFusedKernels(backend: string, kernels: FusedKernels): void {
  registry.set(backend, kernels);
}

/** Switches every fused kernel on or off (off: the tfjs reference runs everywhere). */
export function setFusedKernels(on: boolean): void {
  enabled = on;
}

/** The fused kernels of the active backend (none when switched off). */
export function fusedKernels(): FusedKernels {
  if (!enabled) return {};
  return registry.get(tf.getBackend()) ?? {};
}

/** Whether a gradient tape is recording: inference-only kernels must not run under one. */
export function recordingGradients(): boolean {
  return (tf.engine() as unknown as { isTapeOn(): boolean }).isTapeOn();
}

/** The fused inference-only linear layer where it applies (no gradient recorded, few rows), else null. */
export function fusedInferenceLinear(x: tf.Tensor2D, w: tf.Tensor2D, bias?: tf.Tensor, lora?: { a: tf.Tensor2D; b: tf.Tensor2D; scale: number }): tf.Tensor2D | null {
  const kernel = fusedKernels().linear;
  return kernel && !recordingGradients() ? kernel(x, w, bias, lora) : null;
}
