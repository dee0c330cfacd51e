/**
 * A rollout's decoding of a Qwen2 / Qwen3 / Llama decoder on the device, 8 dispatches per layer
 * and 4 per step besides (embedding, final norm, LM head, sampling), where the tfjs path takes
 * dozens:
 *
 *   rms(x); [q|k|v] = x [Wq|Wk|Wv] + b + LoRA (one kernel); k, v of the new token rotated and
 *   written into the reply cache in place; attention over the prompt cache and the reply cache
 *   (q rotated inside; Qwen3's qk-norm applied to q and k inside these two); x += o(attn) + LoRA
 *   (one kernel, residual inside); rms(x);
 *   silu(gate) * up with both LoRA terms (one kernel); x += down(...) + LoRA (one kernel).
 *
 * The reply cache is allocated once per rollout at its final size and every shape is fixed for
 * the rollout (lengths and positions are uniforms), so no pipeline is compiled after the first
 * rollout of a shape. The LoRA factors are packed (A and B of q, k, v side by side; gate and
 * up likewise) once per rollout, which is when they can change; base weights are never copied.
 */
import * as tf from '@tensorflow/tfjs';
import { rmsNorm } from '../blocks/norms';
import type { DecodeLinearInputs, DecodingKernels } from '../fused-kernels';
import { DeviceDecodingSession } from '../device-decoding';
import type { DecodingSession, DecodingSpec } from '../language-model';
import type { HfDecoderConfig } from './config';
import type { LoraModule } from './lora';

type Lora = DecodeLinearInputs['lora'];

/**
 * Rows from which the layers' products are tfjs's tiled matmuls, the kernel then adding only the
 * rest (4 dispatches more per layer for q, k, v and gate, up apart: 15 in all). Off unless
 * TURNLAB_DECODE_MATMUL_FROM_ROWS sets it: the tiled decoding kernel does the products itself
 * at every row count (8 per layer); the variable keeps the matmul route to compare on a GPU.
 */
export const MATMUL_FROM_ROWS = Number(process.env.TURNLAB_DECODE_MATMUL_FROM_ROWS ?? Infinity) || Infinity;
/**
 * The same for the LM head alone (TURNLAB_DECODE_HEAD_MATMUL_FROM_ROWS): a quarter of a 64-row
 * step's products at Qwen2.5-0.5B's shape, and the widest product, where tfjs's tiled matmul
 * (17 TFLOP/s in the H200's prefill) may beat the decoding kernel (2.6 TFLOP/s over the step).
 */
const HEAD_MATMUL_FROM_ROWS = Number(process.env.TURNLAB_DECODE_HEAD_MATMUL_FROM_ROWS ?? MATMUL_FROM_ROWS) || MATMUL_FROM_ROWS;

/** What the session reads from its model. */
export interface DecoderWeights {
  base(name: string): tf.Tensor;
  /** A linear layer's base weight [in, out]. */
  linear(layer: number, module: LoraModule): tf.Tensor2D;
  /** A and B of a linear layer's adapter (undefined without one). */
  adapter(layer: number, module: LoraModule): { a: tf.Tensor2D; b: tf.Tensor2D } | undefined;
  loraScale: number;
  inverseFrequency: Float32Array;
}

interface LayerState {
  qkvBias?: tf.Tensor;
  qkvLora: Lora;
  gatedLora: Lora;
  oLora: Lora;
  downLora: Lora;
  cache: tf.Tensor;
  /** Rotary frequencies, then (Qwen3) the qk-norm weights of q and of k. */
  qTable: tf.Tensor;
  kTable: tf.Tensor;
}

/** Whether a session can serve this model and batch (else the sampler decodes through forward()). */
export function canDecodeOnDevice(c: HfDecoderConfig, kernels: DecodingKernels, batch: number, loraRank: number): boolean {
  return batch <= kernels.maxRows && c.headDim <= kernels.maxHeadDim && c.headDim % 2 === 0 && 3 * loraRank <= kernels.maxLoraColumns;
}

export class HfDecodeSession extends DeviceDecodingSession implements DecodingSession {
  private readonly layers: LayerState[] = [];
  private readonly bias: tf.Tensor2D;
  private readonly freq: tf.Tensor1D;

  constructor(
    private readonly c: HfDecoderConfig,
    kernels: DecodingKernels,
    private readonly weights: DecoderWeights,
    batch: number,
    spec: DecodingSpec,
  ) {
    super(kernels, batch, spec);
    const promptColumns = spec.promptCache[0].k.shape[2];
    this.bias = tf.tensor2d(spec.bias, [batch, promptColumns + spec.columns]);
    this.freq = tf.tensor1d(weights.inverseFrequency);
    for (let i = 0; i < c.nLayers; i++) {
      const l = `model.layers.${i}.self_attn.`;
      this.layers.push({
        // The input norm's gain after the biases: q|k|v with biases, LoRA and the norm would bind one buffer more than WebGPU grants.
        qkvBias: c.attentionBias ? tf.tidy(() => tf.concat([weights.base(`${l}q_proj.bias`), weights.base(`${l}k_proj.bias`), weights.base(`${l}v_proj.bias`), weights.base(`model.layers.${i}.input_layernorm.weight`)])) : undefined,
        qkvLora: this.packed(i, ['q_proj', 'k_proj', 'v_proj']),
        gatedLora: this.packed(i, ['gate_proj', 'up_proj']),
        oLora: this.packed(i, ['o_proj']),
        downLora: this.packed(i, ['down_proj']),
        cache: kernels.allocateReplyCache(batch, c.nKvHeads, Math.max(1, spec.columns), c.headDim),
        qTable: c.qkNorm ? tf.concat([this.freq, weights.base(`${l}q_norm.weight`)]) : this.freq,
        kTable: c.qkNorm ? tf.concat([this.freq, weights.base(`${l}k_norm.weight`)]) : this.freq,
      });
    }
  }

  /** A and B of `modules` side by side; a module without an adapter gets zeros (its term vanishes). */
  private packed(layer: number, modules: LoraModule[]): Lora {
    const adapters = modules.map((m) => this.weights.adapter(layer, m));
    const present = adapters.find((a) => a !== undefined);
    if (!present) return undefined;
    const rank = present.a.shape[1];
    return tf.tidy(() => {
      const parts = adapters.map((adapter, j) => {
        if (adapter) return adapter;
        const w = this.weights.linear(layer, modules[j]);
        return { a: tf.zeros([w.shape[0], rank]) as tf.Tensor2D, b: tf.zeros([rank, w.shape[1]]) as tf.Tensor2D };
      });
      const a = parts.length === 1 ? parts[0].a.clone() : (tf.concat(parts.map((p) => p.a), 1) as tf.Tensor2D);
      const b = parts.length === 1 ? parts[0].b.clone() : (tf.concat(parts.map((p) => p.b), 1) as tf.Tensor2D);
      return { a, b, scale: this.weights.loraScale };
    });
  }

  private linear(form: 'single' | 'qkv' | 'gated', inputs: DecodeLinearInputs): tf.Tensor2D {
    const matmul = this.batch >= MATMUL_FROM_ROWS;
    if (matmul && inputs.norm) inputs = { ...inputs, x: rmsNorm(inputs.x, inputs.norm.weight, inputs.norm.eps), norm: undefined };
    const y = this.kernels.linear(form, matmul ? { ...inputs, weights: inputs.weights.map((w) => tf.matMul(inputs.x, w)), precomputed: true } : inputs);
    if (!y) throw new Error(`The device decoding kernels refused a ${form} layer of ${inputs.x.shape[0]} rows`);
    return y;
  }

  protected record(ids: tf.Tensor2D, positions: tf.Tensor1D): tf.Tensor2D {
    const { c, kernels, weights } = this;
    const w = (name: string) => weights.base(name) as tf.Tensor2D;
    const qColumns = c.nHeads * c.headDim;
    let x = kernels.embed(weights.base('model.embed_tokens.weight'), ids);
    for (let i = 0; i < c.nLayers; i++) {
      const l = `model.layers.${i}.`;
      const state = this.layers[i];
      const projection = (m: LoraModule) => weights.linear(i, m);
      // Each RMSNorm folded into the product after it (tiled-decode-linear.ts): 6 dispatches a layer.
      const qkv = this.linear('qkv', { x, norm: { weight: w(`${l}input_layernorm.weight`), eps: c.rmsNormEps, afterBias: state.qkvBias !== undefined }, weights: [projection('q_proj'), projection('k_proj'), projection('v_proj')], bias: state.qkvBias, lora: state.qkvLora });
      kernels.writeReplyCache(state.cache, qkv, positions, state.kTable, this.fed, qColumns, c.rmsNormEps);
      const frozen = this.spec.promptCache[i];
      const attended = kernels.attend(qkv, positions, state.qTable, state.cache, this.bias, frozen, c.nHeads, this.fed + 1, c.rmsNormEps);
      x = this.linear('single', { x: attended, weights: [projection('o_proj')], lora: state.oLora, residual: x });
      const gated = this.linear('gated', { x, norm: { weight: w(`${l}post_attention_layernorm.weight`), eps: c.rmsNormEps }, weights: [projection('gate_proj'), projection('up_proj')], lora: state.gatedLora });
      x = this.linear('single', { x: gated, weights: [projection('down_proj')], lora: state.downLora, residual: x });
    }
    this.fed++;
    const head = w(c.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight');
    const norm = { weight: w('model.norm.weight'), eps: c.rmsNormEps };
    return this.batch >= HEAD_MATMUL_FROM_ROWS ? (tf.matMul(rmsNorm(x, norm.weight, norm.eps), head) as tf.Tensor2D) : this.linear('single', { x, norm, weights: [head] });
  }

  protected replyCaches(): tf.Tensor[] {
    return this.layers.map((layer) => layer.cache);
  }

  protected release(): void {
    for (const layer of this.layers) {
      tf.dispose([layer.cache, ...(layer.qkvBias ? [layer.qkvBias] : []), ...(layer.qTable !== this.freq ? [layer.qTable, layer.kTable] : [])]);
      for (const lora of [layer.qkvLora, layer.gatedLora, layer.oLora, layer.downLora]) if (lora) tf.dispose([lora.a, lora.b]);
    }
    tf.dispose([this.bias, this.freq]);
  }
}
