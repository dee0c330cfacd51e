/**
 * Decoder-only, pre-LayerNorm GPT used as policy, reference and critic.
 *
 * One class serves every role: a policy has the LM head (optionally a value head on the same
 * trunk), a separate critic is the same class with `lmHead: false, valueHead: true`.
 * Written for tfjs speed, where most step time goes to op dispatch rather than arithmetic:
 * Q, K and V come from one fused matmul, all heads run as one batched matmul, bias and ReLU are
 * fused into the matmuls, and there are no per-token loops in the forward pass.
 * Weights are [in, out] (y = x @ W + b).
 */
import * as tf from '@tensorflow/tfjs';
import { Rng, deriveSeed } from '../rng';

export interface TransformerConfig {
  vocabSize: number;
  contextLength: number;
  dModel: number;
  nLayers: number;
  nHeads: number;
  /** Hidden width of the MLP; default 4 * dModel. */
  dMlp?: number;
  /** LM head reuses the token embedding (transposed); default true. */
  tieEmbeddings?: boolean;
  /** Produce next-token logits; default true. A separate critic sets false. */
  lmHead?: boolean;
  /** Produce a scalar value per position from the last hidden state; default false. */
  valueHead?: boolean;
  layerNormEps?: number;
  /**
   * How token order reaches attention: 'learned' adds a trained embedding per absolute position
   * (GPT-2); 'rope' rotates queries and keys by their position (Qwen, Llama), so attention
   * scores depend on the offset between two tokens, which makes neighbours in a grid easy to
   * find. Default 'learned'.
   */
  positionEncoding?: PositionEncoding;
  /**
   * Base of the rotary frequencies (Llama's rope_theta); default 10000. With head width h only
   * the first few of the h/2 frequencies turn by a visible angle over a short prompt: a small base
   * spreads them over the offsets the prompts actually have.
   */
  ropeBase?: number;
}

export const POSITION_ENCODINGS = ['learned', 'rope'] as const;
export type PositionEncoding = (typeof POSITION_ENCODINGS)[number];

export type ResolvedTransformerConfig = Required<TransformerConfig>;

/** Keys and values of every past position, per layer: [batch, heads, past, headDim]. */
export interface LayerCache {
  k: tf.Tensor4D;
  v: tf.Tensor4D;
  /**
   * The same keys as [batch, heads, dim, past], made once for a frozen cache (the prompt's) by
   * prepareFrozenCache: each decoding step then multiplies by them directly, where a transposed
   * operand would be copied into this layout at every step. Same products, same result.
   */
  keysByDim?: tf.Tensor4D;
}
export type KVCache = LayerCache[];

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
   * values at every step (on wasm that copy was most of a decoding step). Inference only: its
   * attention uses plain matmuls, whose gradients are slow on wasm.
   */
  frozenCache?: KVCache;
}

export interface ForwardOptions {
  logits?: boolean;
  values?: boolean;
  /** Return the updated KV cache (prefill and decoding steps). */
  returnCache?: boolean;
  /** Compute outputs only for the last position of each row (decoding). */
  lastPositionOnly?: boolean;
}

export interface ForwardOutput {
  /** [batch, time, vocab], or [batch, 1, vocab] with lastPositionOnly. */
  logits?: tf.Tensor3D;
  /** [batch, time], or [batch, 1]. */
  values?: tf.Tensor2D;
  cache?: KVCache;
}

/** Large enough that exp() of it is exactly 0 in float32, small enough to stay finite. */
export const MASKED = -1e9;

const INIT_STD = 0.02;

export function resolveTransformerConfig(config: TransformerConfig): ResolvedTransformerConfig {
  const resolved: ResolvedTransformerConfig = {
    vocabSize: config.vocabSize,
    contextLength: config.contextLength,
    dModel: config.dModel,
    nLayers: config.nLayers,
    nHeads: config.nHeads,
    dMlp: config.dMlp ?? 4 * config.dModel,
    tieEmbeddings: config.tieEmbeddings ?? true,
    lmHead: config.lmHead ?? true,
    valueHead: config.valueHead ?? false,
    layerNormEps: config.layerNormEps ?? 1e-5,
    positionEncoding: config.positionEncoding ?? 'learned',
    ropeBase: config.ropeBase ?? 10000,
  };
  for (const key of ['vocabSize', 'contextLength', 'dModel', 'nLayers', 'nHeads', 'dMlp'] as const) {
    const value = resolved[key];
    if (!Number.isInteger(value) || value <= 0) throw new Error(`Model config ${key} must be a positive integer, got ${value}`);
  }
  if (resolved.dModel % resolved.nHeads !== 0) {
    throw new Error(`Model config dModel (${resolved.dModel}) must be divisible by nHeads (${resolved.nHeads})`);
  }
  if (!resolved.lmHead && !resolved.valueHead) throw new Error('Model config needs lmHead, valueHead or both');
  if (!POSITION_ENCODINGS.includes(resolved.positionEncoding)) {
    throw new Error(`Model config positionEncoding must be one of ${POSITION_ENCODINGS.join(', ')}, got ${JSON.stringify(resolved.positionEncoding)}`);
  }
  if (!(resolved.ropeBase > 1)) throw new Error(`Model config ropeBase must be greater than 1, got ${resolved.ropeBase}`);
  if (resolved.positionEncoding === 'rope' && (resolved.dModel / resolved.nHeads) % 2 !== 0) {
    throw new Error(`Model config with rope needs an even head width, got dModel/nHeads = ${resolved.dModel / resolved.nHeads}`);
  }
  return resolved;
}

interface ParamSpec {
  name: string;
  shape: number[];
  init: 'normal' | 'zeros' | 'ones';
  std?: number;
}

function paramSpecs(c: ResolvedTransformerConfig): ParamSpec[] {
  const d = c.dModel;
  const residualStd = INIT_STD / Math.sqrt(2 * c.nLayers);
  const specs: ParamSpec[] = [
    { name: 'tok_emb', shape: [c.vocabSize, d], init: 'normal', std: INIT_STD },
  ];
  if (c.positionEncoding === 'learned') specs.push({ name: 'pos_emb', shape: [c.contextLength, d], init: 'normal', std: INIT_STD });
  for (let i = 0; i < c.nLayers; i++) {
    const p = `layers.${i}.`;
    specs.push(
      { name: `${p}ln1.gain`, shape: [d], init: 'ones' },
      { name: `${p}ln1.bias`, shape: [d], init: 'zeros' },
      { name: `${p}attn.qkv.weight`, shape: [d, 3 * d], init: 'normal', std: INIT_STD },
      { name: `${p}attn.qkv.bias`, shape: [3 * d], init: 'zeros' },
      { name: `${p}attn.out.weight`, shape: [d, d], init: 'normal', std: residualStd },
      { name: `${p}attn.out.bias`, shape: [d], init: 'zeros' },
      { name: `${p}ln2.gain`, shape: [d], init: 'ones' },
      { name: `${p}ln2.bias`, shape: [d], init: 'zeros' },
      { name: `${p}mlp.up.weight`, shape: [d, c.dMlp], init: 'normal', std: INIT_STD },
      { name: `${p}mlp.up.bias`, shape: [c.dMlp], init: 'zeros' },
      { name: `${p}mlp.down.weight`, shape: [c.dMlp, d], init: 'normal', std: residualStd },
      { name: `${p}mlp.down.bias`, shape: [d], init: 'zeros' },
    );
  }
  specs.push({ name: 'ln_f.gain', shape: [d], init: 'ones' }, { name: 'ln_f.bias', shape: [d], init: 'zeros' });
  if (c.lmHead && !c.tieEmbeddings) specs.push({ name: 'lm_head.weight', shape: [d, c.vocabSize], init: 'normal', std: INIT_STD });
  if (c.valueHead) {
    specs.push({ name: 'value_head.weight', shape: [d, 1], init: 'normal', std: INIT_STD });
    specs.push({ name: 'value_head.bias', shape: [1], init: 'zeros' });
  }
  return specs;
}

function initialValues(spec: ParamSpec, seed: number): Float32Array {
  const size = spec.shape.reduce((a, b) => a * b, 1);
  const values = new Float32Array(size);
  if (spec.init === 'ones') values.fill(1);
  if (spec.init === 'normal') {
    // One stream per parameter name: adding a layer or head leaves the others' values unchanged.
    const rng = new Rng(deriveSeed(seed, 'init', spec.name));
    const std = spec.std ?? INIT_STD;
    for (let i = 0; i < size; i++) values[i] = rng.normal() * std;
  }
  return values;
}

/**
 * Checks that `arrays` hold every parameter of a model with `config`, each with its shape, and
 * returns the parameters' names and shapes in the model's order; touches no tensor, so a
 * checkpoint can be checked before a backend is chosen.
 */
export function checkParameterArrays(config: ResolvedTransformerConfig, arrays: Record<string, { shape: number[] }>): Array<[string, number[]]> {
  return paramSpecs(config).map((spec): [string, number[]] => {
    const entry = arrays[spec.name];
    if (!entry) throw new Error(`Checkpoint lacks parameter "${spec.name}"`);
    if (entry.shape.join(',') !== spec.shape.join(',')) {
      throw new Error(`Checkpoint parameter "${spec.name}" has shape [${entry.shape}], the config needs [${spec.shape}]`);
    }
    return [spec.name, spec.shape];
  });
}

export class Transformer {
  readonly config: ResolvedTransformerConfig;
  private readonly params = new Map<string, tf.Variable>();

  private constructor(config: ResolvedTransformerConfig, values: (spec: ParamSpec) => Float32Array) {
    this.config = config;
    for (const spec of paramSpecs(config)) {
      const initial = tf.tensor(values(spec), spec.shape, 'float32');
      this.params.set(spec.name, tf.variable(initial, true));
      // The variable holds its own reference to the data.
      initial.dispose();
    }
  }

  /** Fresh weights from `seed`: the same seed gives the same weights on every backend. */
  static create(config: TransformerConfig, seed: number): Transformer {
    return new Transformer(resolveTransformerConfig(config), (spec) => initialValues(spec, seed));
  }

  /** Rebuilds a model from named arrays (a checkpoint); every parameter must be present. */
  static fromArrays(config: TransformerConfig, arrays: Record<string, { shape: number[]; data: Float32Array }>): Transformer {
    const resolved = resolveTransformerConfig(config);
    checkParameterArrays(resolved, arrays);
    return new Transformer(resolved, (spec) => arrays[spec.name].data);
  }

  /** Parameter names in a fixed order (the order of variables()). */
  get parameterNames(): string[] {
    return [...this.params.keys()];
  }

  variables(): tf.Variable[] {
    return [...this.params.values()];
  }

  namedVariables(): Array<[string, tf.Variable]> {
    return [...this.params.entries()];
  }

  parameter(name: string): tf.Variable {
    const variable = this.params.get(name);
    if (!variable) throw new Error(`Model has no parameter "${name}"`);
    return variable;
  }

  /** Re-keys tf.variableGrads output (keyed by tfjs variable names) by parameter name. */
  nameGradients(grads: tf.NamedTensorMap): Record<string, tf.Tensor> {
    const named: Record<string, tf.Tensor> = {};
    for (const [name, variable] of this.params) {
      const grad = grads[variable.name];
      if (grad) named[name] = grad;
    }
    return named;
  }

  parameterCount(): number {
    let count = 0;
    for (const variable of this.params.values()) count += variable.size;
    return count;
  }

  /** Downloads every parameter (for checkpoints and copies). */
  async toArrays(): Promise<Record<string, { shape: number[]; data: Float32Array }>> {
    const out: Record<string, { shape: number[]; data: Float32Array }> = {};
    for (const [name, variable] of this.params) {
      out[name] = { shape: [...variable.shape], data: (await variable.data()) as Float32Array };
    }
    return out;
  }

  /** A model with the same config and a copy of these weights (the reference policy). */
  /** A copy with its own variables, made on the device: WebGPU under Node cannot read back synchronously. */
  clone(): Transformer {
    const copy = new Transformer(this.config, (spec) => new Float32Array(spec.shape.reduce((a, b) => a * b, 1)));
    copy.copyWeightsFrom(this);
    return copy;
  }

  copyWeightsFrom(other: Transformer): void {
    for (const [name, variable] of this.params) variable.assign(other.parameter(name));
  }

  /**
   * Copies the parameters this model shares with `other` (embeddings and blocks), keeping its own
   * heads: a critic starts from the policy's trunk as verl's does from the actor's weights.
   */
  copyTrunkFrom(other: Transformer): void {
    for (const [name, variable] of this.params) {
      if (name.startsWith('lm_head') || name.startsWith('value_head')) continue;
      const source = other.parameter(name);
      if (source.shape.join() !== variable.shape.join()) {
        throw new Error(`Cannot copy "${name}": shape ${source.shape.join('x')} into ${variable.shape.join('x')}`);
      }
      variable.assign(source);
    }
  }

  dispose(): void {
    for (const variable of this.params.values()) variable.dispose();
    this.params.clear();
  }

  /** Adds keysByDim to each layer of a cache that will be read as `frozenCache` for many steps. */
  prepareFrozenCache(cache: KVCache): KVCache {
    return cache.map((layer) => ({ ...layer, keysByDim: layer.keysByDim ?? (layer.k.transpose([0, 1, 3, 2]) as tf.Tensor4D) }));
  }

  /** Creates intermediate tensors: call inside tf.tidy (or a gradient function). */
  forward(input: ForwardInput, options: ForwardOptions = {}): ForwardOutput {
    const c = this.config;
    const wantLogits = options.logits ?? c.lmHead;
    const wantValues = options.values ?? c.valueHead;
    if (wantLogits && !c.lmHead) throw new Error('This model has no LM head (it is a critic)');
    if (wantValues && !c.valueHead) throw new Error('This model has no value head');
    const [batch, time] = input.tokens.shape;
    const frozenWidth = input.frozenCache?.[0]?.k.shape[2] ?? 0;
    const past = (input.cache?.[0]?.k.shape[2] ?? 0) + frozenWidth;
    if (past + time > c.contextLength) {
      throw new Error(`Sequence of ${past + time} tokens exceeds the model's context length ${c.contextLength}`);
    }
    const d = c.dModel;
    const heads = c.nHeads;
    const headDim = d / heads;
    const p = (name: string) => this.parameter(name);

    let x = embed(p('tok_emb') as tf.Tensor2D, input.tokens.reshape([-1]));
    const rope = c.positionEncoding === 'rope' ? rotation(input.positions, headDim, c.ropeBase) : null;
    // Positions stay below past + time, so the table's gradient needs no more rows than that.
    if (!rope) x = x.add(embed(p('pos_emb') as tf.Tensor2D, input.positions.reshape([-1]), Math.min(c.contextLength, past + time)));
    const newCache: KVCache = [];
    const scale = tf.scalar(1 / Math.sqrt(headDim));
    for (let i = 0; i < c.nLayers; i++) {
      const l = `layers.${i}.`;
      const h = layerNorm(x, p(`${l}ln1.gain`), p(`${l}ln1.bias`), c.layerNormEps);
      const qkv = linear(h, p(`${l}attn.qkv.weight`), p(`${l}attn.qkv.bias`));
      // Column slices then 4-D transposes: wasm's rank-5 transpose was 40% of a training step.
      const split = [0, 1, 2].map(
        (j) => qkv.slice([0, j * d], [batch * time, d]).reshape([batch, time, heads, headDim]).transpose([0, 2, 1, 3]) as tf.Tensor4D,
      );
      let [k, v] = [rope ? rotate(split[1], rope) : split[1], split[2]];
      const cached = input.cache?.[i];
      if (cached) {
        k = tf.concat([cached.k, k], 2);
        v = tf.concat([cached.v, v], 2);
      }
      if (options.returnCache) newCache.push({ k, v });
      const q = (rope ? rotate(split[0], rope) : split[0]).reshape([batch * heads, time, headDim]).mul(scale) as tf.Tensor3D;
      const frozen = input.frozenCache?.[i];
      const attended = frozen
        ? attendWithFrozen(q, frozen, k, v, input.bias)
        : attend(q, k, v, input.bias);
      const merged = attended.reshape([batch, heads, time, headDim]).transpose([0, 2, 1, 3]).reshape([batch * time, d]);
      x = x.add(linear(merged, p(`${l}attn.out.weight`), p(`${l}attn.out.bias`)));
      const h2 = layerNorm(x, p(`${l}ln2.gain`), p(`${l}ln2.bias`), c.layerNormEps);
      const up = linear(h2, p(`${l}mlp.up.weight`), p(`${l}mlp.up.bias`), true);
      x = x.add(linear(up, p(`${l}mlp.down.weight`), p(`${l}mlp.down.bias`)));
    }
    let outTime = time;
    if (options.lastPositionOnly && time > 1) {
      x = x.reshape([batch, time, d]).slice([0, time - 1, 0], [batch, 1, d]).reshape([batch, d]);
      outTime = 1;
    }
    const final = layerNorm(x, p('ln_f.gain'), p('ln_f.bias'), c.layerNormEps);
    const output: ForwardOutput = {};
    if (wantLogits) {
      const logits = c.tieEmbeddings
        ? matmul(final, swapLast(p('tok_emb')))
        : matmul(final, p('lm_head.weight'));
      output.logits = logits.reshape([batch, outTime, c.vocabSize]) as tf.Tensor3D;
    }
    if (wantValues) {
      const values = linear(final, p('value_head.weight'), p('value_head.bias'));
      output.values = values.reshape([batch, outTime]) as tf.Tensor2D;
    }
    if (options.returnCache) output.cache = newCache;
    return output;
  }
}

/** Softmax attention of q [batch*heads, time, dim] over k, v [batch, heads, keys, dim]. */
function attend(q: tf.Tensor3D, k: tf.Tensor4D, v: tf.Tensor4D, bias: tf.Tensor4D): tf.Tensor {
  const [batch, heads, keys, headDim] = k.shape;
  const time = q.shape[1];
  const scores = matmul(q, swapLast(k.reshape([batch * heads, keys, headDim])));
  const weights = tf.softmax(scores.reshape([batch, heads, time, keys]).add(bias));
  return matmul(weights.reshape([batch * heads, time, keys]), v.reshape([batch * heads, keys, headDim]));
}

/**
 * The same attention over frozen keys followed by k, v, without concatenating them: scores of
 * both blocks side by side (small), one softmax, and the two weighted sums added. transposeB
 * reads the keys in place, where an explicit transpose would copy them every step.
 */
function attendWithFrozen(q: tf.Tensor3D, frozen: LayerCache, k: tf.Tensor4D, v: tf.Tensor4D, bias: tf.Tensor4D): tf.Tensor {
  const [batch, heads, recent, headDim] = k.shape;
  const before = frozen.k.shape[2];
  const time = q.shape[1];
  const rows = batch * heads;
  const frozenV = frozen.v.reshape([rows, before, headDim]) as tf.Tensor3D;
  const frozenScores = frozen.keysByDim
    ? tf.matMul(q, frozen.keysByDim.reshape([rows, headDim, before]) as tf.Tensor3D)
    : tf.matMul(q, frozen.k.reshape([rows, before, headDim]) as tf.Tensor3D, false, true);
  const scores = tf.concat([frozenScores, tf.matMul(q, k.reshape([rows, recent, headDim]) as tf.Tensor3D, false, true)], 2);
  const weights = tf.softmax(scores.reshape([batch, heads, time, before + recent]).add(bias)).reshape([rows, time, before + recent]);
  const fromFrozen = tf.matMul(weights.slice([0, 0, 0], [rows, time, before]) as tf.Tensor3D, frozenV);
  const fromRecent = tf.matMul(weights.slice([0, 0, before], [rows, time, recent]) as tf.Tensor3D, v.reshape([rows, recent, headDim]) as tf.Tensor3D);
  return fromFrozen.add(fromRecent);
}

/**
 * Row lookup whose gradient is a one-hot matmul: tf.gather's own gradient needs
 * UnsortedSegmentSum, which the wasm backend lacks. Every id is below `used` (by default the
 * table's length), so the one-hot is that wide and the rows past it get a zero gradient: a
 * 1024-position table read up to position 90 no longer pays for 1024 columns (on Sokoban's warm
 * start that matmul was the largest of the step, and its one-hot the most memory).
 */
function embed(table: tf.Tensor2D, ids: tf.Tensor, used = table.shape[0]): tf.Tensor2D {
  const rows = table.shape[0];
  const lookup = tf.customGrad((...args) => {
    const t = args[0] as tf.Tensor2D;
    // Saved, not captured: the forward scope disposes everything it did not save.
    (args[1] as tf.GradSaveFunc)([ids]);
    return {
      value: tf.gather(t, ids),
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
        const grad = tf.matMul(swapLast(oneHotFloat(saved[0], used)), dy);
        return used < rows ? tf.pad(grad, [[0, rows - used], [0, 0]]) : grad;
      },
    };
  });
  return lookup(table) as tf.Tensor2D;
}

interface Rotation {
  cos: tf.Tensor4D;
  sin: tf.Tensor4D;
}

/** RoPE angles position * base^(-2i/headDim) as [batch, 1, time, headDim/2] cos and sin. */
function rotation(positions: tf.Tensor2D, headDim: number, base: number): Rotation {
  const half = headDim / 2;
  const [batch, time] = positions.shape;
  const inverseFrequency = tf.tensor1d(Array.from({ length: half }, (_, i) => Math.pow(base, (-2 * i) / headDim)));
  const angles = positions.cast('float32').reshape([batch, 1, time, 1]).mul(inverseFrequency.reshape([1, 1, 1, half]));
  return { cos: angles.cos() as tf.Tensor4D, sin: angles.sin() as tf.Tensor4D };
}

/** Rotates each (i, i + headDim/2) pair of [batch, heads, time, headDim] by its angle (GPT-NeoX layout). */
function rotate(x: tf.Tensor4D, { cos, sin }: Rotation): tf.Tensor4D {
  const [batch, heads, time, headDim] = x.shape;
  const half = headDim / 2;
  const first = x.slice([0, 0, 0, 0], [batch, heads, time, half]);
  const second = x.slice([0, 0, 0, half], [batch, heads, time, half]);
  return tf.concat([first.mul(cos).sub(second.mul(sin)), first.mul(sin).add(second.mul(cos))], 3) as tf.Tensor4D;
}

function layerNorm(x: tf.Tensor2D, gain: tf.Tensor, bias: tf.Tensor, eps: number): tf.Tensor2D {
  const centred = x.sub(x.mean(-1, true));
  const inverseStd = centred.square().mean(-1, true).add(eps).rsqrt();
  return centred.mul(inverseStd).mul(gain).add(bias) as tf.Tensor2D;
}

/**
 * One-hot rows as float32. Built as int32 and cast: the wasm kernel of tf.oneHot(..., 'float32')
 * writes integer bit patterns (tfjs 4.22), which read back as ~0.
 */
export function oneHotFloat(ids: tf.Tensor, depth: number): tf.Tensor {
  return tf.oneHot(ids, depth).cast('float32');
}

/*
 * Matrix products without transpose flags, forward and backward. On the wasm backend a matmul
 * with transposeA/transposeB (which tf's own matMul gradient uses) runs 10-25x slower than an
 * explicit transpose followed by a plain matmul, and dominated the training step.
 */

export function swapLast(t: tf.Tensor): tf.Tensor {
  return t.rank === 2 ? t.transpose() : t.transpose([0, 2, 1]);
}

export function matmul(a: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const product = tf.customGrad((...args) => {
    const [x, y, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    save([x, y]);
    return {
      value: tf.matMul(x as tf.Tensor3D, y as tf.Tensor3D),
      gradFunc: (dy: tf.Tensor, [xs, ys]: tf.Tensor[]) => [tf.matMul(dy as tf.Tensor3D, swapLast(ys) as tf.Tensor3D), tf.matMul(swapLast(xs) as tf.Tensor3D, dy as tf.Tensor3D)],
    };
  });
  return product(a, b);
}

/** x @ w + bias (then ReLU), fused in the forward pass. */
function linear(x: tf.Tensor, w: tf.Tensor, bias: tf.Tensor, relu = false): tf.Tensor2D {
  const layer = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const [xs, ws, bs, save] = args as [tf.Tensor2D, tf.Tensor2D, tf.Tensor, tf.GradSaveFunc];
    const y = tf.fused.matMul({ a: xs, b: ws, bias: bs, activation: relu ? 'relu' : 'linear' });
    save(relu ? [xs, ws, y] : [xs, ws]);
    return {
      value: y,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const g = relu ? dy.mul(tf.step(saved[2])) : dy;
        return [tf.matMul(g, saved[1].transpose()), tf.matMul(saved[0].transpose(), g), g.sum(0)];
      },
    };
  });
  return layer(x, w, bias) as tf.Tensor2D;
}
