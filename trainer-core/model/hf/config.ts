/**
 * Reads a Hugging Face `config.json` into the one decoder description TurnLab runs. Qwen2,
 * Qwen3 and Llama share one block (RMSNorm, rotary positions, grouped-query attention, SwiGLU);
 * each architecture's descriptor (./architectures) says which of the block's options its config
 * turns on (q/k/v biases, per-head q/k RMSNorm); Llama 3's rescaled rotary frequencies are read
 * here for all.
 */
import { FolderError, makeFolder } from '../../make-folder';
import { BUILT_IN_ARCHITECTURES, findArchitecture, registeredArchitectures } from './architectures';

/** A model folder the user must fix (unsupported architecture, missing file, bad value). */
export class HfModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HfModelError';
  }
}

/** Makes an output folder, or says in one line which parent refused and why. */
export function makeHfFolder(dir: string): void {
  try {
    makeFolder(dir);
  } catch (error) {
    if (error instanceof FolderError) throw new HfModelError(`cannot create ${dir}: ${error.message}; choose another folder`);
    throw error;
  }
}

/** The architectures TurnLab ships; registerArchitecture adds more. */
export const SUPPORTED_ARCHITECTURES: readonly string[] = BUILT_IN_ARCHITECTURES.map((a) => a.name);
export type Architecture = string;

export interface Llama3RopeScaling {
  type: 'llama3';
  factor: number;
  lowFreqFactor: number;
  highFreqFactor: number;
  originalMaxPositionEmbeddings: number;
}

export interface HfDecoderConfig {
  architecture: Architecture;
  modelType: string;
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  nLayers: number;
  nHeads: number;
  nKvHeads: number;
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  ropeScaling: Llama3RopeScaling | null;
  /** Biases on q, k and v projections (Qwen2; Llama's `attention_bias`). */
  attentionBias: boolean;
  /** RMSNorm over each head of q and k before the rotation (Qwen3). */
  qkNorm: boolean;
  tieWordEmbeddings: boolean;
  maxPositionEmbeddings: number;
  bosTokenId: number | null;
  eosTokenIds: number[];
}

type Json = Record<string, unknown>;

/** Far past the deepest released decoder (Llama 3.1 405B has 126 layers). */
const MAX_LAYERS = 4096;

function integer(json: Json, key: string, source: string, fallback?: number): number {
  const value = json[key] ?? fallback;
  if (!Number.isInteger(value) || (value as number) <= 0) {
    throw new HfModelError(`${source}: "${key}" must be a positive integer, got ${JSON.stringify(json[key])}`);
  }
  return value as number;
}

function positive(json: Json, key: string, source: string, fallback: number): number {
  const value = json[key] ?? fallback;
  if (typeof value !== 'number' || !(value > 0)) throw new HfModelError(`${source}: "${key}" must be a positive number, got ${JSON.stringify(json[key])}`);
  return value;
}

function ids(value: unknown): number[] {
  if (Number.isInteger(value)) return [value as number];
  if (Array.isArray(value)) return value.filter((v): v is number => Number.isInteger(v));
  return [];
}

function ropeScaling(json: Json, source: string): Llama3RopeScaling | null {
  const raw = json.rope_scaling as Json | null | undefined;
  if (raw === null || raw === undefined) return null;
  const type = raw.rope_type ?? raw.type;
  if (type === 'default') return null;
  if (type !== 'llama3') throw new HfModelError(`${source}: rope_scaling type ${JSON.stringify(type)} is not supported; TurnLab reads "llama3" (or none)`);
  return {
    type: 'llama3',
    factor: positive(raw, 'factor', `${source} rope_scaling`, 8),
    lowFreqFactor: positive(raw, 'low_freq_factor', `${source} rope_scaling`, 1),
    highFreqFactor: positive(raw, 'high_freq_factor', `${source} rope_scaling`, 4),
    originalMaxPositionEmbeddings: integer(raw, 'original_max_position_embeddings', `${source} rope_scaling`, 8192),
  };
}

/** Parses config.json; refuses architectures TurnLab cannot run, naming the ones it can. */
export function parseHfConfig(json: Json, source = 'config.json'): HfDecoderConfig {
  const architectures = Array.isArray(json.architectures) ? (json.architectures as unknown[]) : [];
  const descriptor = architectures.map((a) => (typeof a === 'string' ? findArchitecture(a) : undefined)).find((d) => d !== undefined);
  if (!descriptor) {
    const named = architectures.length > 0 ? architectures.map(String).join(', ') : `model_type ${JSON.stringify(json.model_type)}`;
    throw new HfModelError(`${source}: architecture ${named} is not supported; TurnLab runs ${registeredArchitectures().join(', ')}`);
  }
  const architecture = descriptor.name;
  const nLayers = integer(json, 'num_hidden_layers', source);
  // Each layer's tensors are listed by name before any weight is read: 1e12 layers ran the process out of memory.
  if (nLayers > MAX_LAYERS) throw new HfModelError(`${source}: "num_hidden_layers" is ${nLayers}, past any model TurnLab can load (at most ${MAX_LAYERS}); use the config.json that came with the weights`);
  const hiddenSize = integer(json, 'hidden_size', source);
  const nHeads = integer(json, 'num_attention_heads', source);
  const nKvHeads = integer(json, 'num_key_value_heads', source, nHeads);
  if (nHeads % nKvHeads !== 0) throw new HfModelError(`${source}: num_attention_heads (${nHeads}) must be a multiple of num_key_value_heads (${nKvHeads})`);
  const headDim = integer(json, 'head_dim', source, Math.floor(hiddenSize / nHeads));
  if (headDim % 2 !== 0) throw new HfModelError(`${source}: head_dim must be even for rotary positions, got ${headDim}`);
  if (json.hidden_act !== undefined && json.hidden_act !== 'silu') throw new HfModelError(`${source}: hidden_act ${JSON.stringify(json.hidden_act)} is not supported; these architectures use "silu"`);
  return {
    architecture,
    modelType: String(json.model_type ?? ''),
    vocabSize: integer(json, 'vocab_size', source),
    hiddenSize,
    intermediateSize: integer(json, 'intermediate_size', source),
    nLayers,
    nHeads,
    nKvHeads,
    headDim,
    rmsNormEps: positive(json, 'rms_norm_eps', source, 1e-6),
    ropeTheta: positive(json, 'rope_theta', source, 10000),
    ropeScaling: ropeScaling(json, source),
    ...descriptor.blockOptions(json),
    tieWordEmbeddings: json.tie_word_embeddings === true,
    maxPositionEmbeddings: integer(json, 'max_position_embeddings', source, 32768),
    bosTokenId: Number.isInteger(json.bos_token_id) ? (json.bos_token_id as number) : null,
    eosTokenIds: ids(json.eos_token_id),
  };
}

/** Rotary inverse frequencies theta^(-2i/d), rescaled by band for Llama 3. */
export function inverseFrequencies(config: Pick<HfDecoderConfig, 'headDim' | 'ropeTheta' | 'ropeScaling'>): Float64Array {
  const half = config.headDim / 2;
  const out = new Float64Array(half);
  for (let i = 0; i < half; i++) out[i] = Math.pow(config.ropeTheta, (-2 * i) / config.headDim);
  const s = config.ropeScaling;
  if (!s) return out;
  // Long wavelengths (beyond the original context / lowFreqFactor) are slowed by `factor`,
  // short ones (below context / highFreqFactor) kept, and the band between interpolated.
  const lowWavelength = s.originalMaxPositionEmbeddings / s.lowFreqFactor;
  const highWavelength = s.originalMaxPositionEmbeddings / s.highFreqFactor;
  for (let i = 0; i < half; i++) {
    const wavelength = (2 * Math.PI) / out[i];
    if (wavelength > lowWavelength) out[i] /= s.factor;
    else if (wavelength >= highWavelength) {
      const smooth = (s.originalMaxPositionEmbeddings / wavelength - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
      out[i] = (1 - smooth) * (out[i] / s.factor) + smooth * out[i];
    }
  }
  return out;
}

/** Parameter count of the base model (what loading reports). */
export function baseParameterCount(c: HfDecoderConfig): number {
  const q = c.nHeads * c.headDim;
  const kv = c.nKvHeads * c.headDim;
  let perLayer = 2 * c.hiddenSize + c.hiddenSize * (q + 2 * kv) + q * c.hiddenSize + 3 * c.hiddenSize * c.intermediateSize;
  if (c.attentionBias) perLayer += q + 2 * kv;
  if (c.qkNorm) perLayer += 2 * c.headDim;
  const embeddings = c.vocabSize * c.hiddenSize * (c.tieWordEmbeddings ? 1 : 2);
  return embeddings + c.nLayers * perLayer + c.hiddenSize;
}
