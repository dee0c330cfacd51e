/**
 * The Qwen2 / Qwen3 / Llama decoder on tfjs, with the same forward interface as TurnLab's own
 * Transformer (token ids, per-row positions, an additive attention bias, a KV cache), so the
 * sampler, the scorer and the PPO update run it unchanged.
 *
 * Per layer: x += o(attn(rope(qnorm(q(rms(x)))), rope(knorm(k(rms(x)))), v(rms(x))));
 * x += down(silu(gate(rms(x))) * up(rms(x))). Grouped-query attention without copying keys:
 * the `rep` query heads that share a key/value head are stacked along time and multiplied
 * with that head's keys in one batched matmul.
 *
 * Every 2-D float32 weight is held transposed from the Hugging Face layout ([in, out], y = x @ W),
 * the embedding included ([hidden, vocab]): a tied LM head is then that same tensor, and a
 * token's embedding is a column of it. A frozen base matrix stored 16-bit (BF16, F16) stays
 * 16-bit (model/half-matrix.ts) where the backend has the products (wasm, cpu, WebGPU), unless
 * the options ask for float32: the embedding (gather), the linear layers and the tied LM head
 * then read the same 16-bit matrix.
 */
import * as tf from '@tensorflow/tfjs';
import { Rng, deriveSeed } from '../../rng';
import { prepareFrozenCache, selfAttention, type KVCache } from '../blocks/attention';
import { checkpointed } from '../blocks/checkpoint';
import { embedColumns } from '../blocks/embedding';
import { swiglu } from '../blocks/gated-mlp';
import { fusedInferenceLinear, fusedKernels, recordingGradients } from '../fused-kernels';
import { halfEmbedding, halfLinear } from '../blocks/half-linear';
import type { DecodingSession, DecodingSpec } from '../language-model';
import { HfDecodeSession, canDecodeOnDevice } from './decode-session';
import { frozenMatmul, matmul } from '../blocks/linear';
import { HalfMatrix, halfBackend, kernelHolds } from '../half-matrix';
import { widenOnDevice } from '../webgpu/half-products';
import { rmsNorm } from '../blocks/norms';
import { rotation } from '../blocks/rotary';
import type { ForwardInput, ForwardOptions, ForwardOutput, LmHead } from '../forward';
import { baseParameterCount, inverseFrequencies, type HfDecoderConfig } from './config';
import { LORA_MODULES, initialLoraA, loraScale, type LoraModule, type LoraSettings } from './lora';
import { isHalfTensor, widenTensor, type HfStoredTensor, type HfTensor } from './weights';

export interface HfDecoderOptions {
  /** Longest sequence the sampler may build; default the config's max_position_embeddings. */
  contextLength?: number;
  /** Produce next-token logits (a policy); default true. */
  lmHead?: boolean;
  /** A scalar value per position from a fresh head (a critic); default false. */
  valueHead?: boolean;
  /** Adapters on the listed linear layers; the base weights are then frozen. */
  lora?: LoraSettings | null;
  /** Inference only (generation): without LoRA, nothing trains and the base is frozen as with it. */
  frozen?: boolean;
  /**
   * A decoder of the same folder whose frozen base this one reads instead of a copy of its own
   * (a LoRA critic beside its policy); it must outlive this one. Ignored unless both are frozen.
   */
  sharedBase?: HfDecoder;
  /** Seed of the adapter and value-head initialisation. */
  seed?: number;
  /**
   * `auto` (the default): frozen base matrices stored 16-bit stay 16-bit on wasm, cpu and WebGPU;
   * `float32`: every weight is widened on load (actor_rollout_ref.model.dtype).
   */
  dtype?: 'auto' | 'float32';
}

/** The part of TurnLab's model config the sampler, scorer and trainer read. */
export interface DecoderRoleConfig {
  vocabSize: number;
  contextLength: number;
  lmHead: boolean;
  valueHead: boolean;
}

const MODULE_OWNER: Record<LoraModule, 'self_attn' | 'mlp'> = {
  q_proj: 'self_attn',
  k_proj: 'self_attn',
  v_proj: 'self_attn',
  o_proj: 'self_attn',
  gate_proj: 'mlp',
  up_proj: 'mlp',
  down_proj: 'mlp',
};

export function linearName(layer: number, module: LoraModule): string {
  return `model.layers.${layer}.${MODULE_OWNER[module]}.${module}`;
}

export class HfDecoder {
  readonly hf: HfDecoderConfig;
  readonly config: DecoderRoleConfig;
  readonly lora: LoraSettings | null;
  /** Base weights by Hugging Face name (2-D ones transposed). */
  private readonly base = new Map<string, tf.Variable>();
  /** Frozen base matrices kept 16-bit, [out, in] as Hugging Face stores them. */
  private readonly half = new Map<string, HalfMatrix>();
  /** Trainable parameters: adapters (`<linear>.lora_A` / `.lora_B`) and the value head, or everything. */
  private readonly trainable = new Map<string, tf.Variable>();
  private readonly inverseFrequency: Float32Array;
  /** Whether the base weights train (full fine-tuning). */
  private readonly baseTrains: boolean;
  private readonly dtype: HfDecoderOptions['dtype'];
  /** Base weights read from another decoder (sharedBase): not this one's to free. */
  private readonly borrowed = new Set<string>();

  private constructor(hf: HfDecoderConfig, tensors: Record<string, HfStoredTensor>, options: HfDecoderOptions) {
    this.hf = hf;
    this.lora = options.lora ?? null;
    this.config = {
      vocabSize: hf.vocabSize,
      contextLength: options.contextLength ?? hf.maxPositionEmbeddings,
      lmHead: options.lmHead ?? true,
      valueHead: options.valueHead ?? false,
    };
    if (!this.config.lmHead && !this.config.valueHead) throw new Error('A decoder needs an LM head, a value head or both');
    this.inverseFrequency = Float32Array.from(inverseFrequencies(hf));
    const fullFineTune = this.lora === null && options.frozen !== true;
    this.baseTrains = fullFineTune;
    this.dtype = options.dtype;
    const keepHalf = !fullFineTune && options.dtype !== 'float32' && halfBackend();
    for (const [name, shape] of expectedShapes(hf)) {
      if (name === 'lm_head.weight' && !this.config.lmHead) continue;
      const tensor = tensors[name];
      if (!tensor) throw new Error(`The weights lack "${name}" (${hf.architecture})`);
      if (tensor.shape.join(',') !== shape.join(',')) throw new Error(`Weight "${name}" has shape [${tensor.shape}], the config needs [${shape}]`);
      const shared = !fullFineTune && options.sharedBase && !options.sharedBase.baseTrains && options.dtype === options.sharedBase.dtype ? options.sharedBase : null;
      if (shared && (shared.half.has(name) || shared.base.has(name))) {
        if (shared.half.has(name)) this.half.set(name, shared.half.get(name)!);
        else this.base.set(name, shared.base.get(name)!);
        this.borrowed.add(name);
        continue;
      }
      if (keepHalf && isHalfTensor(tensor) && shape.length === 2 && kernelHolds(tensor.halves, shape[1], tensor.format)) {
        this.half.set(name, HalfMatrix.fromBits(tensor.halves, shape[0], shape[1], tensor.format));
        continue;
      }
      const { data } = widenTensor(tensor);
      const variable = tf.tidy(() => {
        const t = tf.tensor(data, shape, 'float32');
        return tf.variable(shape.length === 2 ? t.transpose() : t, fullFineTune, `${name}#${variableCounter++}`);
      });
      this.base.set(name, variable);
      if (fullFineTune) this.trainable.set(name, variable);
    }
    const seed = options.seed ?? 0;
    if (this.lora) {
      for (let layer = 0; layer < hf.nLayers; layer++) {
        for (const module of this.lora.targetModules) {
          const name = linearName(layer, module);
          const [fanIn, fanOut] = this.linearShape(`${name}.weight`);
          const a = tf.tensor2d(initialLoraA(seed, name, fanIn, this.lora.rank), [fanIn, this.lora.rank]);
          this.trainable.set(`${name}.lora_A`, tf.variable(a, true, `${name}.lora_A#${variableCounter++}`));
          this.trainable.set(`${name}.lora_B`, tf.tidy(() => tf.variable(tf.zeros([this.lora!.rank, fanOut]), true, `${name}.lora_B#${variableCounter++}`)));
          a.dispose();
        }
      }
    }
    if (this.config.valueHead) {
      const rng = new Rng(deriveSeed(seed, 'init', 'value_head'));
      const w = Float32Array.from({ length: hf.hiddenSize }, () => rng.normal() * 0.02);
      // Variables outlive tf.tidy; the tensors they are made from do not.
      this.trainable.set('value_head.weight', tf.tidy(() => tf.variable(tf.tensor2d(w, [hf.hiddenSize, 1]), true, `value_head.weight#${variableCounter++}`)));
      this.trainable.set('value_head.bias', tf.tidy(() => tf.variable(tf.zeros([1]), true, `value_head.bias#${variableCounter++}`)));
    }
  }

  /** Builds a decoder from Hugging Face tensors ([out, in] layout, as read from safetensors). */
  static fromHfTensors(hf: HfDecoderConfig, tensors: Record<string, HfStoredTensor>, options: HfDecoderOptions = {}): HfDecoder {
    return new HfDecoder(hf, tensors, options);
  }

  /** [in, out] of a base matrix, 16-bit or float32. */
  private linearShape(name: string): [number, number] {
    const half = this.half.get(name);
    return half ? [half.cols, half.rows] : (this.base.get(name)!.shape as [number, number]);
  }

  /** How many base matrices are held 16-bit. */
  get halfMatrices(): number {
    return this.half.size;
  }

  /** Trainable parameters in a fixed order: the optimizer's and the gradient's list. */
  variables(): tf.Variable[] {
    return [...this.trainable.values()];
  }

  namedVariables(): Array<[string, tf.Variable]> {
    return [...this.trainable.entries()];
  }

  get parameterNames(): string[] {
    return [...this.trainable.keys()];
  }

  parameter(name: string): tf.Variable {
    if (this.half.has(name)) throw new Error(`"${name}" is held 16-bit and frozen; read it with baseTensors()`);
    const variable = this.trainable.get(name) ?? this.base.get(name);
    if (!variable) throw new Error(`Model has no parameter "${name}"`);
    return variable;
  }

  /** Re-keys tf.variableGrads output by parameter name. */
  nameGradients(grads: tf.NamedTensorMap): Record<string, tf.Tensor> {
    const named: Record<string, tf.Tensor> = {};
    for (const [name, variable] of this.trainable) if (grads[variable.name]) named[name] = grads[variable.name];
    return named;
  }

  /** Every parameter, base and trainable. */
  parameterCount(): number {
    let count = 0;
    for (const v of this.base.values()) count += v.size;
    for (const m of this.half.values()) count += m.size;
    for (const [name, v] of this.trainable) if (!this.base.has(name)) count += v.size;
    return count;
  }

  trainableParameterCount(): number {
    return this.variables().reduce((n, v) => n + v.size, 0);
  }

  /** Bytes of weights held (what loading reports): 4 a float32 value, 2 a 16-bit one. */
  weightBytes(): number {
    let halfValues = 0;
    for (const m of this.half.values()) halfValues += m.size;
    return 4 * (this.parameterCount() - halfValues) + 2 * halfValues;
  }

  /** Base weights in Hugging Face layout and names ([out, in]), adapters not merged. */
  async baseTensors(): Promise<Record<string, HfTensor>> {
    const out: Record<string, HfTensor> = {};
    for (const [name, matrix] of this.half) out[name] = { shape: [matrix.rows, matrix.cols], data: await matrix.widen() };
    for (const [name, variable] of this.base) {
      const t = variable.rank === 2 ? tf.tidy(() => variable.transpose()) : variable;
      out[name] = { shape: [...t.shape], data: (await t.data()) as Float32Array };
      if (t !== variable) t.dispose();
    }
    return out;
  }

  /** Trainable tensors in TurnLab's layout (adapters [in, r] / [r, out], value head). */
  async trainableArrays(): Promise<Record<string, HfTensor>> {
    const out: Record<string, HfTensor> = {};
    for (const [name, variable] of this.trainable) out[name] = { shape: [...variable.shape], data: (await variable.data()) as Float32Array };
    return out;
  }

  /** Sets trainable tensors from arrays (a checkpoint); every one must be present. */
  loadTrainable(arrays: Record<string, { shape: number[]; data: Float32Array | Int32Array }>, source: string): void {
    for (const [name, variable] of this.trainable) {
      const entry = arrays[name];
      if (!entry) throw new Error(`${source} lacks parameter "${name}"`);
      if (entry.shape.join(',') !== variable.shape.join(',')) throw new Error(`${source}: "${name}" has shape [${entry.shape}], the model needs [${variable.shape}]`);
      const value = tf.tensor(entry.data, entry.shape, 'float32');
      variable.assign(value);
      value.dispose();
    }
  }

  /**
   * The base model with the adapters switched off, sharing this model's weights: the reference
   * policy of a LoRA run, without a second copy of the weights. It has nothing to train.
   */
  withoutAdapters(): AdapterlessView {
    return new AdapterlessView(this);
  }

  parameterSummary(): string {
    const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    const lora = this.lora ? `, LoRA rank ${this.lora.rank} alpha ${this.lora.alpha} on ${this.lora.targetModules.join(',')}: ${this.trainableParameterCount().toLocaleString('en-US')} trainable` : '';
    const held = this.half.size > 0 ? `${mb(this.weightBytes())} (${this.half.size} base matrices 16-bit)` : `${mb(this.weightBytes())} as float32`;
    return `${this.hf.architecture}: ${baseParameterCount(this.hf).toLocaleString('en-US')} parameters, ${held}${lora}`;
  }

  dispose(): void {
    for (const [name, v] of this.base) if (!this.borrowed.has(name)) v.dispose();
    for (const [name, m] of this.half) if (!this.borrowed.has(name)) m.dispose();
    for (const [name, v] of this.trainable) if (!this.base.has(name)) v.dispose();
    this.base.clear();
    this.half.clear();
    this.trainable.clear();
  }

  /** Creates intermediate tensors: call inside tf.tidy (or a gradient function). */
  forward(input: ForwardInput, options: ForwardOptions = {}): ForwardOutput {
    return this.run(input, options, true);
  }

  /** x @ w for a base weight: with LoRA the base is frozen, and its gradient is never formed. */
  private product(x: tf.Tensor, weight: tf.Tensor): tf.Tensor {
    return this.baseTrains ? matmul(x, weight) : frozenMatmul(x, weight);
  }

  /** Adds keysByDim to each layer of a cache that will be read as `frozenCache` for many steps. */
  prepareFrozenCache(cache: KVCache): KVCache {
    return prepareFrozenCache(cache);
  }

  /** A rollout's decoding on the device (with the adapters), where the backend has the kernels for it. */
  startDecoding(batch: number, spec: DecodingSpec): DecodingSession | null {
    const kernels = fusedKernels().decoding;
    if (!kernels || recordingGradients() || !this.config.lmHead || !canDecodeOnDevice(this.hf, kernels, batch, this.lora?.rank ?? 0)) return null;
    // The device's decoding kernels read float32 weights: a 16-bit base is widened for the
    // rollout (one dispatch a matrix) and freed with its session, so the base is 16-bit outside
    // rollouts (training, scoring) and float32 plus 16-bit during one.
    const widened = new Map([...this.half].map(([name, matrix]) => [name, widenOnDevice(matrix)]));
    const float = (name: string): tf.Tensor => widened.get(name) ?? this.base.get(name)!;
    const adapter = (layer: number, module: LoraModule) => {
      const name = linearName(layer, module);
      const a = this.trainable.get(`${name}.lora_A`);
      return a ? { a: a as tf.Tensor2D, b: this.trainable.get(`${name}.lora_B`)! as tf.Tensor2D } : undefined;
    };
    const weights = {
      base: float,
      linear: (layer: number, module: LoraModule) => float(`${linearName(layer, module)}.weight`) as tf.Tensor2D,
      adapter,
      loraScale: this.lora ? loraScale(this.lora) : 1,
      inverseFrequency: this.inverseFrequency,
    };
    const session = new HfDecodeSession(this.hf, kernels, weights, batch, spec);
    if (widened.size === 0) return session;
    return {
      step: (ids, positions) => session.step(ids, positions),
      replyCache: () => session.replyCache(),
      sample: (logits, draws, temperature, greedy, topK, topP) => session.sample(logits, draws, temperature, greedy, topK, topP),
      flush: () => session.flush(),
      dispose: () => {
        session.dispose();
        tf.dispose([...widened.values()]);
      },
    };
  }

  /** The LM head as scoring applies it: [hidden, vocab], trainable only without LoRA. */
  lmHead(): LmHead {
    if (!this.config.lmHead) throw new Error('This model has no LM head (it is a critic)');
    const name = this.hf.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight';
    const half = this.half.get(name);
    if (half) return { half, trainable: false };
    return { weight: this.base.get(name)! as tf.Tensor2D, vocabMajor: false, trainable: this.baseTrains };
  }

  /** @internal The forward pass, with or without the adapters. */
  run(input: ForwardInput, options: ForwardOptions, adapters: boolean): ForwardOutput {
    const c = this.hf;
    const wantLogits = options.logits ?? this.config.lmHead;
    const wantValues = options.values ?? this.config.valueHead;
    if (wantLogits && !this.config.lmHead) throw new Error('This model has no LM head (it is a critic)');
    if (wantValues && !this.config.valueHead) throw new Error('This model has no value head');
    const [batch, time] = input.tokens.shape;
    const frozenWidth = input.frozenCache?.[0]?.k.shape[2] ?? 0;
    const past = (input.cache?.[0]?.k.shape[2] ?? 0) + frozenWidth;
    if (past + time > this.config.contextLength) {
      throw new Error(`Sequence of ${past + time} tokens exceeds the model's context length ${this.config.contextLength}`);
    }
    const w = (name: string) => this.base.get(name)!;
    const lin = (x: tf.Tensor2D, layer: number, module: LoraModule, bias: boolean): tf.Tensor2D => {
      const name = linearName(layer, module);
      const a = adapters ? this.trainable.get(`${name}.lora_A`) : undefined;
      const lora = a ? { a: a as tf.Tensor2D, b: this.trainable.get(`${name}.lora_B`)! as tf.Tensor2D, scale: loraScale(this.lora!) } : undefined;
      const half = this.half.get(`${name}.weight`);
      const fused = half ? null : fusedInferenceLinear(x, w(`${name}.weight`) as tf.Tensor2D, bias ? w(`${name}.bias`) : undefined, lora);
      if (fused) return fused;
      let y = half ? halfLinear(x, half) : this.product(x, w(`${name}.weight`));
      if (bias) y = y.add(w(`${name}.bias`));
      if (lora) y = y.add(matmul(matmul(x, lora.a), lora.b).mul(lora.scale));
      return y as tf.Tensor2D;
    };
    const table = this.half.get('model.embed_tokens.weight');
    let x = table ? halfEmbedding(table, input.tokens) : embedColumns(w('model.embed_tokens.weight'), input.tokens.reshape([-1]));
    const rope = rotation(input.positions, this.inverseFrequency);
    const newCache: KVCache = [];
    const shape = { batch, time, nHeads: c.nHeads, nKvHeads: c.nKvHeads, headDim: c.headDim };
    // Checkpointing recomputes a layer from its input; a returned cache would be a second output.
    const checkpoint = options.checkpointLayers === true && !options.returnCache && !input.frozenCache;
    for (let i = 0; i < c.nLayers; i++) {
      const l = `model.layers.${i}.`;
      const layer = (xIn: tf.Tensor2D, cached: tf.Tensor[], context: tf.Tensor[]): tf.Tensor2D => {
        const [bias, cos, sin] = context as [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D];
        const h = rmsNorm(xIn, w(`${l}input_layernorm.weight`), c.rmsNormEps);
        const attended = selfAttention(shape, {
          q: lin(h, i, 'q_proj', c.attentionBias),
          k: lin(h, i, 'k_proj', c.attentionBias),
          v: lin(h, i, 'v_proj', c.attentionBias),
          normalize: c.qkNorm
            ? (q, k) => [rmsNorm(q, w(`${l}self_attn.q_norm.weight`), c.rmsNormEps), rmsNorm(k, w(`${l}self_attn.k_norm.weight`), c.rmsNormEps)]
            : undefined,
          rope: { cos, sin },
          bias,
          cache: cached.length > 0 ? { k: cached[0] as tf.Tensor4D, v: cached[1] as tf.Tensor4D } : undefined,
          frozen: input.frozenCache?.[i],
        });
        if (options.returnCache) newCache.push(attended.cache);
        const y: tf.Tensor2D = xIn.add(lin(attended.merged, i, 'o_proj', false)) as tf.Tensor2D;
        const h2 = rmsNorm(y, w(`${l}post_attention_layernorm.weight`), c.rmsNormEps);
        const gate = lin(h2, i, 'gate_proj', false);
        return y.add(lin(swiglu(gate, lin(h2, i, 'up_proj', false)) as tf.Tensor2D, i, 'down_proj', false)) as tf.Tensor2D;
      };
      const cached = input.cache?.[i] ? [input.cache[i].k, input.cache[i].v] : [];
      const context = [input.bias, rope.cos, rope.sin];
      const params = adapters ? [...this.trainable.entries()].filter(([name]) => name.startsWith(l)).map(([, v]) => v) : [];
      if (checkpoint) x = checkpointed(layer, x, cached, context, params);
      else if (recordingGradients()) x = layer(x, cached, context);
      else x = inferenceLayer(layer, x, cached, context, newCache, options.returnCache === true);
    }
    let outTime = time;
    if (options.lastPositionOnly && time > 1) {
      x = x.reshape([batch, time, c.hiddenSize]).slice([0, time - 1, 0], [batch, 1, c.hiddenSize]).reshape([batch, c.hiddenSize]);
      outTime = 1;
    }
    const final = rmsNorm(x, w('model.norm.weight'), c.rmsNormEps);
    const output: ForwardOutput = {};
    if (options.hidden) output.hidden = final.reshape([batch, outTime, c.hiddenSize]) as tf.Tensor3D;
    if (wantLogits) {
      const name = c.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight';
      const half = this.half.get(name);
      output.logits = (half ? halfLinear(final as tf.Tensor2D, half) : this.product(final, w(name))).reshape([batch, outTime, c.vocabSize]) as tf.Tensor3D;
    }
    if (wantValues) {
      const values = matmul(final, this.trainable.get('value_head.weight')!).add(this.trainable.get('value_head.bias')!);
      output.values = values.reshape([batch, outTime]) as tf.Tensor2D;
    }
    if (options.returnCache) output.cache = newCache;
    return output;
  }
}

/**
 * One layer without a gradient, its intermediates freed as it ends: one tf.tidy around a whole
 * pass would keep every layer's (about 20 MB a layer for 128 tokens of SmolLM2-135M, gigabytes
 * for a long prompt of a large model). The layer's output and new cache entry are kept.
 */
function inferenceLayer(
  layer: (x: tf.Tensor2D, cached: tf.Tensor[], context: tf.Tensor[]) => tf.Tensor2D,
  x: tf.Tensor2D,
  cached: tf.Tensor[],
  context: tf.Tensor[],
  newCache: KVCache,
  returnCache: boolean,
): tf.Tensor2D {
  const [y, k, v] = tf.tidy(() => {
    const out = layer(x, cached, context);
    if (!returnCache) return [out];
    const entry = newCache.pop()!;
    return [out, entry.k, entry.v];
  });
  if (returnCache) newCache.push({ k: k as tf.Tensor4D, v: v as tf.Tensor4D });
  return y as tf.Tensor2D;
}

/** A decoder seen without its adapters (the LoRA reference policy). */
export class AdapterlessView {
  readonly config: DecoderRoleConfig;
  constructor(private readonly model: HfDecoder) {
    this.config = { ...model.config, valueHead: false };
  }

  forward(input: ForwardInput, options: ForwardOptions = {}): ForwardOutput {
    return this.model.run(input, { ...options, values: false }, false);
  }

  prepareFrozenCache(cache: KVCache): KVCache {
    return prepareFrozenCache(cache);
  }

  /** The base model's head: frozen here, whatever the viewed model trains. */
  lmHead(): LmHead {
    const head = this.model.lmHead();
    return 'half' in head ? head : { ...head, trainable: false };
  }

  variables(): tf.Variable[] {
    return [];
  }

  namedVariables(): Array<[string, tf.Variable]> {
    return [];
  }

  /** The weights belong to the model it views: nothing to free. */
  dispose(): void {}
}

let variableCounter = 0;

/**
 * Names and shapes of the parameters a decoder built with these options trains, in TurnLab's
 * layout (2-D weights [in, out], adapters A [in, r] and B [r, out]): what its checkpoints hold.
 */
export function trainableShapes(c: HfDecoderConfig, options: Pick<HfDecoderOptions, 'lora' | 'lmHead' | 'valueHead'>): Array<[string, number[]]> {
  const out: Array<[string, number[]]> = [];
  const base = expectedShapes(c).filter(([name]) => name !== 'lm_head.weight' || (options.lmHead ?? true));
  if (options.lora) {
    const shapes = new Map(base);
    for (let layer = 0; layer < c.nLayers; layer++) {
      for (const module of options.lora.targetModules) {
        const name = linearName(layer, module);
        const [fanOut, fanIn] = shapes.get(`${name}.weight`)!;
        out.push([`${name}.lora_A`, [fanIn, options.lora.rank]], [`${name}.lora_B`, [options.lora.rank, fanOut]]);
      }
    }
  } else {
    for (const [name, shape] of base) out.push([name, shape.length === 2 ? [shape[1], shape[0]] : shape]);
  }
  if (options.valueHead) out.push(['value_head.weight', [c.hiddenSize, 1]], ['value_head.bias', [1]]);
  return out;
}

/** Names and Hugging Face shapes of every base tensor an architecture needs. */
export function expectedShapes(c: HfDecoderConfig): Array<[string, number[]]> {
  const h = c.hiddenSize;
  const q = c.nHeads * c.headDim;
  const kv = c.nKvHeads * c.headDim;
  const out: Array<[string, number[]]> = [['model.embed_tokens.weight', [c.vocabSize, h]]];
  for (let i = 0; i < c.nLayers; i++) {
    const l = `model.layers.${i}.`;
    out.push([`${l}input_layernorm.weight`, [h]], [`${l}post_attention_layernorm.weight`, [h]]);
    out.push([`${l}self_attn.q_proj.weight`, [q, h]], [`${l}self_attn.k_proj.weight`, [kv, h]], [`${l}self_attn.v_proj.weight`, [kv, h]]);
    if (c.attentionBias) out.push([`${l}self_attn.q_proj.bias`, [q]], [`${l}self_attn.k_proj.bias`, [kv]], [`${l}self_attn.v_proj.bias`, [kv]]);
    if (c.qkNorm) out.push([`${l}self_attn.q_norm.weight`, [c.headDim]], [`${l}self_attn.k_norm.weight`, [c.headDim]]);
    out.push([`${l}self_attn.o_proj.weight`, [h, q]]);
    out.push([`${l}mlp.gate_proj.weight`, [c.intermediateSize, h]], [`${l}mlp.up_proj.weight`, [c.intermediateSize, h]], [`${l}mlp.down_proj.weight`, [h, c.intermediateSize]]);
  }
  out.push(['model.norm.weight', [h]]);
  if (!c.tieWordEmbeddings) out.push(['lm_head.weight', [c.vocabSize, h]]);
  return out;
}

/** Names of the linear layers LoRA can adapt, for every layer. */
export function adaptedLinears(c: HfDecoderConfig, modules: readonly LoraModule[] = LORA_MODULES): string[] {
  const out: string[] = [];
  for (let i = 0; i < c.nLayers; i++) for (const m of modules) out.push(linearName(i, m));
  return out;
}
