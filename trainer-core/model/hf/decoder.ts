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
 * Every 2-D weight is held transposed from the Hugging Face layout ([in, out], y = x @ W), the
 * embedding included ([hidden, vocab]): a tied LM head is then that same tensor, and a token's
 * embedding is a column of it.
 */
import * as tf from '@tensorflow/tfjs';
import { Rng, deriveSeed } from '../../rng';
import { matmul, swapLast, type ForwardInput, type ForwardOptions, type ForwardOutput, type KVCache } from '../transformer';
import { baseParameterCount, inverseFrequencies, type HfDecoderConfig } from './config';
import { LORA_MODULES, initialLoraA, loraScale, type LoraModule, type LoraSettings } from './lora';
import type { HfTensor } from './weights';

export interface HfDecoderOptions {
  /** Longest sequence the sampler may build; default the config's max_position_embeddings. */
  contextLength?: number;
  /** Produce next-token logits (a policy); default true. */
  lmHead?: boolean;
  /** A scalar value per position from a fresh head (a critic); default false. */
  valueHead?: boolean;
  /** Adapters on the listed linear layers; the base weights are then frozen. */
  lora?: LoraSettings | null;
  /** Seed of the adapter and value-head initialisation. */
  seed?: number;
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
  /** Trainable parameters: adapters (`<linear>.lora_A` / `.lora_B`) and the value head, or everything. */
  private readonly trainable = new Map<string, tf.Variable>();
  private readonly inverseFrequency: Float32Array;

  private constructor(hf: HfDecoderConfig, tensors: Record<string, HfTensor>, options: HfDecoderOptions) {
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
    const fullFineTune = this.lora === null;
    for (const [name, shape] of expectedShapes(hf)) {
      if (name === 'lm_head.weight' && !this.config.lmHead) continue;
      const tensor = tensors[name];
      if (!tensor) throw new Error(`The weights lack "${name}" (${hf.architecture})`);
      if (tensor.shape.join(',') !== shape.join(',')) throw new Error(`Weight "${name}" has shape [${tensor.shape}], the config needs [${shape}]`);
      const variable = tf.tidy(() => {
        const t = tf.tensor(tensor.data, shape, 'float32');
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
          const [fanIn, fanOut] = this.base.get(`${name}.weight`)!.shape;
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
  static fromHfTensors(hf: HfDecoderConfig, tensors: Record<string, HfTensor>, options: HfDecoderOptions = {}): HfDecoder {
    return new HfDecoder(hf, tensors, options);
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
    for (const [name, v] of this.trainable) if (!this.base.has(name)) count += v.size;
    return count;
  }

  trainableParameterCount(): number {
    return this.variables().reduce((n, v) => n + v.size, 0);
  }

  /** Bytes of float32 weights held (what loading reports). */
  weightBytes(): number {
    return 4 * this.parameterCount();
  }

  /** Base weights in Hugging Face layout and names ([out, in]), adapters not merged. */
  async baseTensors(): Promise<Record<string, HfTensor>> {
    const out: Record<string, HfTensor> = {};
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
    return `${this.hf.architecture}: ${baseParameterCount(this.hf).toLocaleString('en-US')} parameters, ${mb(this.weightBytes())} as float32${lora}`;
  }

  dispose(): void {
    for (const v of this.base.values()) v.dispose();
    for (const [name, v] of this.trainable) if (!this.base.has(name)) v.dispose();
    this.base.clear();
    this.trainable.clear();
  }

  /** Creates intermediate tensors: call inside tf.tidy (or a gradient function). */
  forward(input: ForwardInput, options: ForwardOptions = {}): ForwardOutput {
    return this.run(input, options, true);
  }

  /** x @ w for a base weight: with LoRA the base is frozen, and its gradient is never formed. */
  private product(x: tf.Tensor, weight: tf.Tensor): tf.Tensor {
    return this.lora ? frozenMatmul(x, weight) : matmul(x, weight);
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
    const hd = c.headDim;
    const rep = c.nHeads / c.nKvHeads;
    const w = (name: string) => this.base.get(name)!;
    const lin = (x: tf.Tensor2D, layer: number, module: LoraModule, bias: boolean): tf.Tensor2D => {
      const name = linearName(layer, module);
      let y = this.product(x, w(`${name}.weight`));
      if (bias) y = y.add(w(`${name}.bias`));
      const a = adapters ? this.trainable.get(`${name}.lora_A`) : undefined;
      if (a) y = y.add(matmul(matmul(x, a), this.trainable.get(`${name}.lora_B`)!).mul(loraScale(this.lora!)));
      return y as tf.Tensor2D;
    };
    let x = embed(w('model.embed_tokens.weight'), input.tokens.reshape([-1]));
    const rope = rotation(input.positions, this.inverseFrequency);
    const scale = 1 / Math.sqrt(hd);
    const newCache: KVCache = [];
    const heads = (t: tf.Tensor2D, n: number) => t.reshape([batch, time, n, hd]);
    for (let i = 0; i < c.nLayers; i++) {
      const l = `model.layers.${i}.`;
      const h = rmsNorm(x, w(`${l}input_layernorm.weight`), c.rmsNormEps);
      let q = heads(lin(h, i, 'q_proj', c.attentionBias), c.nHeads);
      let k = heads(lin(h, i, 'k_proj', c.attentionBias), c.nKvHeads);
      const v0 = heads(lin(h, i, 'v_proj', c.attentionBias), c.nKvHeads);
      if (c.qkNorm) {
        q = rmsNorm(q, w(`${l}self_attn.q_norm.weight`), c.rmsNormEps);
        k = rmsNorm(k, w(`${l}self_attn.k_norm.weight`), c.rmsNormEps);
      }
      const qr = rotate(q.transpose([0, 2, 1, 3]) as tf.Tensor4D, rope);
      let kr = rotate(k.transpose([0, 2, 1, 3]) as tf.Tensor4D, rope);
      let v = v0.transpose([0, 2, 1, 3]) as tf.Tensor4D;
      const cached = input.cache?.[i];
      if (cached) {
        kr = tf.concat([cached.k, kr], 2);
        v = tf.concat([cached.v, v], 2);
      }
      if (options.returnCache) newCache.push({ k: kr, v });
      // The sampler's prompt cache is read ahead of the growing one and never returned.
      const frozen = input.frozenCache?.[i];
      if (frozen) {
        kr = tf.concat([frozen.k, kr], 2);
        v = tf.concat([frozen.v, v], 2);
      }
      const keys = kr.shape[2];
      // [batch * kvHeads, rep * time, hd]: the query heads of one group stacked along time.
      const grouped = qr.mul(scale).reshape([batch * c.nKvHeads, rep * time, hd]);
      const scores = matmul(grouped, swapLast(kr.reshape([batch * c.nKvHeads, keys, hd])));
      const weights = tf.softmax(scores.reshape([batch, c.nHeads, time, keys]).add(input.bias));
      const attended = matmul(weights.reshape([batch * c.nKvHeads, rep * time, keys]), v.reshape([batch * c.nKvHeads, keys, hd]));
      const merged = attended.reshape([batch, c.nHeads, time, hd]).transpose([0, 2, 1, 3]).reshape([batch * time, c.nHeads * hd]) as tf.Tensor2D;
      x = x.add(lin(merged, i, 'o_proj', false));
      const h2 = rmsNorm(x, w(`${l}post_attention_layernorm.weight`), c.rmsNormEps);
      const gate = lin(h2, i, 'gate_proj', false);
      x = x.add(lin(gate.mul(tf.sigmoid(gate)).mul(lin(h2, i, 'up_proj', false)) as tf.Tensor2D, i, 'down_proj', false));
    }
    let outTime = time;
    if (options.lastPositionOnly && time > 1) {
      x = x.reshape([batch, time, c.hiddenSize]).slice([0, time - 1, 0], [batch, 1, c.hiddenSize]).reshape([batch, c.hiddenSize]);
      outTime = 1;
    }
    const final = rmsNorm(x, w('model.norm.weight'), c.rmsNormEps);
    const output: ForwardOutput = {};
    if (wantLogits) {
      const head = c.tieWordEmbeddings ? w('model.embed_tokens.weight') : w('lm_head.weight');
      output.logits = this.product(final, head).reshape([batch, outTime, c.vocabSize]) as tf.Tensor3D;
    }
    if (wantValues) {
      const values = matmul(final, this.trainable.get('value_head.weight')!).add(this.trainable.get('value_head.bias')!);
      output.values = values.reshape([batch, outTime]) as tf.Tensor2D;
    }
    if (options.returnCache) output.cache = newCache;
    return output;
  }
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

function rmsNorm<T extends tf.Tensor>(x: T, weight: tf.Tensor, eps: number): T {
  return x.mul(x.square().mean(-1, true).add(eps).rsqrt()).mul(weight) as T;
}

interface Rotation {
  cos: tf.Tensor4D;
  sin: tf.Tensor4D;
}

/** Angles position * inverseFrequency, duplicated to the full head width: [batch, 1, time, hd]. */
function rotation(positions: tf.Tensor2D, inverseFrequency: Float32Array): Rotation {
  const [batch, time] = positions.shape;
  const half = inverseFrequency.length;
  const freq = tf.tensor1d(inverseFrequency).reshape([1, 1, 1, half]);
  const angles = positions.cast('float32').reshape([batch, 1, time, 1]).mul(freq);
  const both = tf.concat([angles, angles], 3);
  return { cos: both.cos() as tf.Tensor4D, sin: both.sin() as tf.Tensor4D };
}

/** x * cos + rotate_half(x) * sin, with rotate_half([a, b]) = [-b, a] over the head's halves. */
function rotate(x: tf.Tensor4D, { cos, sin }: Rotation): tf.Tensor4D {
  const [batch, heads, time, hd] = x.shape;
  const half = hd / 2;
  const a = x.slice([0, 0, 0, 0], [batch, heads, time, half]);
  const b = x.slice([0, 0, 0, half], [batch, heads, time, half]);
  return x.mul(cos).add(tf.concat([b.neg(), a], 3).mul(sin)) as tf.Tensor4D;
}

/**
 * Column lookup in the [hidden, vocab] table. Its gradient is a one-hot matmul: tf.gather's own
 * needs UnsortedSegmentSum, which the wasm backend lacks.
 */
function embed(table: tf.Tensor, ids: tf.Tensor): tf.Tensor2D {
  const vocab = table.shape[1]!;
  const lookup = tf.customGrad((...args) => {
    const t = args[0] as tf.Tensor2D;
    (args[1] as tf.GradSaveFunc)([ids]);
    return {
      value: tf.gather(t, ids, 1).transpose() as tf.Tensor2D,
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => tf.matMul(dy.transpose(), tf.oneHot(saved[0], vocab).cast('float32')),
    };
  });
  return lookup(table) as tf.Tensor2D;
}

/**
 * x @ w with a gradient for x only. A frozen weight is captured, not an input: tfjs would
 * otherwise form its full gradient (for a tied LM head, a hidden x vocabulary matrix) on every
 * backward pass only to drop it.
 */
function frozenMatmul(x: tf.Tensor, weight: tf.Tensor): tf.Tensor {
  const product = tf.customGrad((...args) => {
    const [xs] = args as [tf.Tensor, tf.GradSaveFunc];
    return {
      value: tf.matMul(xs as tf.Tensor2D, weight as tf.Tensor2D),
      // An explicit transpose, then a plain product: wasm's matMul with transposeB is several
      // times slower (3.4x on a [120, 151936] x [151936, 64] LM-head gradient, bench notes in README).
      gradFunc: (dy: tf.Tensor) => tf.matMul(dy as tf.Tensor2D, weight.transpose() as tf.Tensor2D),
    };
  });
  return product(x);
}
