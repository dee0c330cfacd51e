/**
 * Batched generation with a KV cache. Prompts of different lengths are left-padded; each row's
 * positions start at its first real token and pad keys are masked, so a row's tokens and
 * logprobs do not depend on what else is in the batch.
 *
 * Recorded logprob: log softmax(logits / temperature) at the sampled token, before top-k/top-p
 * truncation. That is what scoreTokens(model, rows, { temperature }) computes by a full forward
 * pass, and what verl's old_log_prob is. Greedy decoding (temperature 0) records logprobs at
 * temperature 1.
 */
import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../rng';
import { endsWithIds } from '../token-ids';
import type { KVCache, Transformer } from './transformer';
import { attentionBias, forwardInputs, packRows } from './batch';

export interface SampleOptions {
  /** Cap on generated tokens per row; also capped by the room left in the context. */
  maxNewTokens: number;
  /** 0 means greedy. Default 1. */
  temperature?: number;
  /** Nucleus sampling mass in (0, 1]; default 1 (off). */
  topP?: number;
  /** Keep only the k most likely tokens; 0 (default) is off. */
  topK?: number;
  /** Argmax instead of sampling (evaluation). */
  greedy?: boolean;
  /** A row stops after emitting one of these (typically the tokenizer's endOfTurnId). */
  stopIds: readonly number[];
  /** A row also stops once its generated ids end with one of these (stop strings, encoded). */
  stopSequences?: readonly (readonly number[])[];
  /** Id fed for finished rows and used as left padding; default 0. */
  padId?: number;
  /** The run's seeded generator; consumed once per sampled token, rows in order. */
  rng: Rng;
  /** false recomputes the whole prefix each step (slow; for checking the cache). Default true. */
  useCache?: boolean;
}

export interface SampleResult {
  /** Generated ids per row, stop token included when the row stopped. */
  tokens: number[][];
  /** Logprob of each generated token (see the file comment for the distribution). */
  logprobs: number[][];
  /** true where the row emitted a stop id or stop sequence, false where it ran out of tokens. */
  stopped: boolean[];
}

interface Decoding {
  greedy: boolean;
  temperature: number;
  topP: number;
  topK: number;
}

export async function sampleTokens(model: Transformer, prompts: readonly (readonly number[])[], options: SampleOptions): Promise<SampleResult> {
  if (!model.config.lmHead) throw new Error('Sampling needs a model with an LM head');
  if (prompts.length === 0) return { tokens: [], logprobs: [], stopped: [] };
  if (prompts.some((p) => p.length === 0)) throw new Error('Every prompt needs at least one token');
  const decoding = decodingOf(options);
  const context = model.config.contextLength;
  const promptWidth = Math.max(...prompts.map((p) => p.length));
  if (promptWidth >= context) {
    throw new Error(`A prompt has ${promptWidth} tokens; the model's context length ${context} leaves no room to generate`);
  }
  const maxNew = Math.min(options.maxNewTokens, context - promptWidth);
  if (!Number.isInteger(options.maxNewTokens) || options.maxNewTokens < 1) {
    throw new Error(`maxNewTokens must be a positive integer, got ${options.maxNewTokens}`);
  }
  const padId = options.padId ?? 0;
  const batch = prompts.length;
  const vocab = model.config.vocabSize;
  const stop = new Set(options.stopIds);
  const stopSequences = options.stopSequences ?? [];
  const tokens: number[][] = prompts.map(() => []);
  const logprobs: number[][] = prompts.map(() => []);
  const stopped = prompts.map(() => false);

  const packed = packRows(prompts, 'left', padId);
  const width = promptWidth + maxNew;
  // Validity of every column the run can reach; generated columns are real for every row.
  const valid = new Uint8Array(batch * width);
  for (let b = 0; b < batch; b++) {
    for (let t = 0; t < width; t++) valid[b * width + t] = t < promptWidth ? packed.valid[b * promptWidth + t] : 1;
  }
  const rows = prompts.map((p) => [...p]);

  // tidy() keeps only what it returns, so the cache leaves each scope inside the result.
  const prefill = tf.tidy(() => {
    const input = forwardInputs(packed);
    const out = model.forward(input, { logits: true, values: false, lastPositionOnly: true, returnCache: options.useCache !== false });
    return [out.logits!, ...flattenCache(out.cache ?? [])];
  });
  let logits: tf.Tensor = prefill[0];
  let cache: KVCache | undefined = unflattenCache(prefill.slice(1));
  try {
    for (let step = 0; step < maxNew; step++) {
      const data = (await logits.data()) as Float32Array;
      const fed = new Int32Array(batch).fill(padId);
      for (let b = 0; b < batch; b++) {
        if (stopped[b]) continue;
        const pick = pickToken(data, b * vocab, vocab, decoding, options.rng);
        tokens[b].push(pick.token);
        logprobs[b].push(pick.logprob);
        rows[b].push(pick.token);
        fed[b] = pick.token;
        if (stop.has(pick.token) || stopSequences.some((s) => endsWithIds(tokens[b], s))) stopped[b] = true;
      }
      if (stopped.every(Boolean) || step === maxNew - 1) break;
      const previous = logits;
      if (options.useCache === false) {
        logits = tf.tidy(() => {
          const input = forwardInputs(packRows(rows, 'left', padId));
          return model.forward(input, { logits: true, values: false, lastPositionOnly: true }).logits!;
        });
      } else {
        const keys = promptWidth + step + 1;
        const oldCache = cache!;
        const next = tf.tidy(() => {
          const keyValid = new Uint8Array(batch * keys);
          for (let b = 0; b < batch; b++) keyValid.set(valid.subarray(b * width, b * width + keys), b * keys);
          const positions = new Int32Array(batch);
          for (let b = 0; b < batch; b++) positions[b] = keys - 1 - packed.starts[b];
          const out = model.forward(
            {
              tokens: tf.tensor2d(fed, [batch, 1], 'int32'),
              positions: tf.tensor2d(positions, [batch, 1], 'int32'),
              bias: tf.tensor4d(attentionBias(keyValid, batch, keys, 1), [batch, 1, 1, keys]),
              cache: oldCache,
            },
            { logits: true, values: false, returnCache: true },
          );
          return [out.logits!, ...flattenCache(out.cache!)];
        });
        logits = next[0];
        cache = unflattenCache(next.slice(1));
        disposeCache(oldCache);
      }
      previous.dispose();
    }
  } finally {
    logits.dispose();
    if (cache) disposeCache(cache);
  }
  return { tokens, logprobs, stopped };
}

function flattenCache(cache: KVCache): tf.Tensor[] {
  return cache.flatMap((layer) => [layer.k, layer.v]);
}

function unflattenCache(tensors: tf.Tensor[]): KVCache {
  const cache: KVCache = [];
  for (let i = 0; i < tensors.length; i += 2) cache.push({ k: tensors[i] as tf.Tensor4D, v: tensors[i + 1] as tf.Tensor4D });
  return cache;
}

function disposeCache(cache: KVCache): void {
  for (const layer of cache) tf.dispose([layer.k, layer.v]);
}

function decodingOf(options: SampleOptions): Decoding {
  const temperature = options.temperature ?? 1;
  const topP = options.topP ?? 1;
  const topK = options.topK ?? 0;
  if (!(temperature >= 0)) throw new Error(`temperature must be >= 0, got ${temperature}`);
  if (!(topP > 0 && topP <= 1)) throw new Error(`topP must be in (0, 1], got ${topP}`);
  if (!Number.isInteger(topK) || topK < 0) throw new Error(`topK must be a non-negative integer, got ${topK}`);
  const greedy = options.greedy === true || temperature === 0;
  return { greedy, temperature: temperature > 0 ? temperature : 1, topP, topK };
}

/**
 * Draws one token from row `offset` of `logits`. Works in float64; the returned logprob is under
 * the full temperature-scaled distribution whatever top-k/top-p kept.
 */
export function pickToken(
  logits: Float32Array,
  offset: number,
  vocab: number,
  decoding: Decoding,
  rng: Rng,
): { token: number; logprob: number } {
  const inv = 1 / decoding.temperature;
  let max = -Infinity;
  let argmax = 0;
  for (let i = 0; i < vocab; i++) {
    const z = logits[offset + i] * inv;
    if (z > max) {
      max = z;
      argmax = i;
    }
  }
  let sum = 0;
  const probs = new Float64Array(vocab);
  for (let i = 0; i < vocab; i++) {
    const p = Math.exp(logits[offset + i] * inv - max);
    probs[i] = p;
    sum += p;
  }
  const logZ = max + Math.log(sum);
  const logprobOf = (token: number) => logits[offset + token] * inv - logZ;
  if (decoding.greedy) return { token: argmax, logprob: logprobOf(argmax) };

  let candidates: number[] | null = null;
  if ((decoding.topK > 0 && decoding.topK < vocab) || decoding.topP < 1) {
    // Most likely first; ties by id so the order never depends on the sort implementation.
    candidates = Array.from({ length: vocab }, (_, i) => i).sort((a, b) => probs[b] - probs[a] || a - b);
    if (decoding.topK > 0) candidates = candidates.slice(0, decoding.topK);
    if (decoding.topP < 1) {
      let mass = 0;
      let keep = 0;
      while (keep < candidates.length && mass < decoding.topP * sum) mass += probs[candidates[keep++]];
      candidates = candidates.slice(0, Math.max(1, keep));
    }
  }
  const order = candidates ?? null;
  const count = order ? order.length : vocab;
  let total = 0;
  for (let j = 0; j < count; j++) total += probs[order ? order[j] : j];
  const target = rng.next() * total;
  let cumulative = 0;
  let token = order ? order[count - 1] : vocab - 1;
  for (let j = 0; j < count; j++) {
    const id = order ? order[j] : j;
    cumulative += probs[id];
    if (target < cumulative) {
      token = id;
      break;
    }
  }
  return { token, logprob: logprobOf(token) };
}
