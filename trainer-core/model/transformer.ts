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
import { prepareFrozenCache, selfAttention, type KVCache } from './blocks/attention';
import { checkpointed } from './blocks/checkpoint';
import { embedRows } from './blocks/embedding';
import { linear, matmul, swapLast } from './blocks/linear';
import { layerNorm } from './blocks/norms';
import { ropeFrequencies, rotation } from './blocks/rotary';
import type { ForwardInput, ForwardOptions, ForwardOutput, LmHead } from './forward';
import { fusedKernels, recordingGradients } from './fused-kernels';
import type { DecodingSession, DecodingSpec } from './language-model';
import { TransformerDecodeSession, canDecodeTransformer } from './transformer-decode-session';

export { MASKED, type ForwardInput, type ForwardOptions, type ForwardOutput, type KVCache, type LayerCache, type LmHead } from './forward';
export { matmul, swapLast } from './blocks/linear';
export { oneHotFloat } from './blocks/embedding';

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

/** How many numbers the model's parameters hold, without creating any. */
export function parameterCount(config: TransformerConfig): number {
  return paramSpecs(resolveTransformerConfig(config)).reduce((n, spec) => n + spec.shape.reduce((a, b) => a * b, 1), 0);
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
    return prepareFrozenCache(cache);
  }

  /** A rollout's decoding on the device, where the backend has the kernels for it. */
  startDecoding(batch: number, spec: DecodingSpec): DecodingSession | null {
    const kernels = fusedKernels().decoding;
    const c = this.config;
    if (!kernels || recordingGradients() || !c.lmHead) return null;
    const headDim = c.dModel / c.nHeads;
    const shape = {
      dModel: c.dModel,
      nHeads: c.nHeads,
      nLayers: c.nLayers,
      layerNormEps: c.layerNormEps,
      ropeFrequencies: c.positionEncoding === 'rope' ? Float32Array.from(ropeFrequencies(headDim, c.ropeBase)) : null,
      tiedHead: c.tieEmbeddings,
    };
    if (!canDecodeTransformer(shape, kernels, batch)) return null;
    return new TransformerDecodeSession(shape, kernels, (name) => this.parameter(name), batch, spec);
  }

  /** The LM head as scoring applies it to hidden states. */
  lmHead(): LmHead {
    if (!this.config.lmHead) throw new Error('This model has no LM head (it is a critic)');
    return this.config.tieEmbeddings
      ? { weight: this.parameter('tok_emb') as tf.Tensor2D, vocabMajor: true, trainable: true }
      : { weight: this.parameter('lm_head.weight') as tf.Tensor2D, vocabMajor: false, trainable: true };
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
    const shape = { batch, time, nHeads: heads, nKvHeads: heads, headDim };

    let x = embedRows(p('tok_emb') as tf.Tensor2D, input.tokens.reshape([-1]));
    const rope = c.positionEncoding === 'rope' ? rotation(input.positions, ropeFrequencies(headDim, c.ropeBase)) : null;
    // Positions stay below past + time, so the table's gradient needs no more rows than that.
    if (!rope) x = x.add(embedRows(p('pos_emb') as tf.Tensor2D, input.positions.reshape([-1]), Math.min(c.contextLength, past + time)));
    const newCache: KVCache = [];
    // Checkpointing recomputes a layer from its input; a returned cache would be a second output.
    const checkpoint = options.checkpointLayers === true && !options.returnCache && !input.frozenCache;
    for (let i = 0; i < c.nLayers; i++) {
      const l = `layers.${i}.`;
      const layer = (xIn: tf.Tensor2D, cached: tf.Tensor[], context: tf.Tensor[]): tf.Tensor2D => {
        const [bias, cos, sin] = context as [tf.Tensor4D, tf.Tensor4D?, tf.Tensor4D?];
        const h = layerNorm(xIn, p(`${l}ln1.gain`), p(`${l}ln1.bias`), c.layerNormEps);
        const qkv = linear(h, p(`${l}attn.qkv.weight`), p(`${l}attn.qkv.bias`));
        // Training without caches or rotation: the backend's attention kernel reads the packed
        // projection itself (WebGPU: 1 dispatch forward and 4 backward where the ops take about 30).
        const fusedAttention = cached.length === 0 && !input.frozenCache && !options.returnCache && !cos && recordingGradients() ? fusedKernels().trainingAttention : undefined;
        let merged = fusedAttention?.(qkv, bias, heads) ?? null;
        if (!merged) {
          // Column slices then 4-D transposes: wasm's rank-5 transpose was 40% of a training step.
          const [q, k, v] = [0, 1, 2].map((j) => qkv.slice([0, j * d], [batch * time, d]) as tf.Tensor2D);
          const attended = selfAttention(shape, {
            q, k, v,
            rope: cos && sin ? { cos, sin } : null,
            bias,
            cache: cached.length > 0 ? { k: cached[0] as tf.Tensor4D, v: cached[1] as tf.Tensor4D } : undefined,
            frozen: input.frozenCache?.[i],
            frozenInPlace: true,
          });
          if (options.returnCache) newCache.push(attended.cache);
          merged = attended.merged;
        }
        const y = xIn.add(linear(merged, p(`${l}attn.out.weight`), p(`${l}attn.out.bias`))) as tf.Tensor2D;
        const h2 = layerNorm(y, p(`${l}ln2.gain`), p(`${l}ln2.bias`), c.layerNormEps);
        const up = linear(h2, p(`${l}mlp.up.weight`), p(`${l}mlp.up.bias`), true);
        return y.add(linear(up, p(`${l}mlp.down.weight`), p(`${l}mlp.down.bias`))) as tf.Tensor2D;
      };
      const cached = input.cache?.[i] ? [input.cache[i].k, input.cache[i].v] : [];
      const context = rope ? [input.bias, rope.cos, rope.sin] : [input.bias];
      x = checkpoint
        ? checkpointed(layer, x, cached, context, this.namedVariables().filter(([name]) => name.startsWith(l)).map(([, v]) => v))
        : layer(x, cached, context);
    }
    let outTime = time;
    if (options.lastPositionOnly && time > 1) {
      x = x.reshape([batch, time, d]).slice([0, time - 1, 0], [batch, 1, d]).reshape([batch, d]);
      outTime = 1;
    }
    const final = layerNorm(x, p('ln_f.gain'), p('ln_f.bias'), c.layerNormEps);
    const output: ForwardOutput = {};
    if (options.hidden) output.hidden = final.reshape([batch, outTime, d]) as tf.Tensor3D;
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
