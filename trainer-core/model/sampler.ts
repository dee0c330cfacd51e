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
import type { DecodingSession, KVCache, LanguageModel } from './language-model';
import { attentionBias, forwardInputs, packRows } from './batch';
import { fusedKernels } from './fused-kernels';
import { gatherPast, type PrefixCache } from './prefix-cache';
import { phase, phaseCount } from './phase-profile';

/** The largest float32 below 1: a float64 draw rounded to float32 must stay below 1. */
const LARGEST_BELOW_ONE = 1 - 2 ** -24;

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
  /**
   * Keys and values kept across calls (the turns of a rollout): each prompt encodes only what
   * follows its longest stored prefix, and each row's prompt and reply are stored under its key.
   */
  prefixCache?: PrefixCache;
  /** One key per prompt (the episode's env id); required with prefixCache. */
  rowKeys?: readonly number[];
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

export async function sampleTokens(model: LanguageModel, prompts: readonly (readonly number[])[], options: SampleOptions): Promise<SampleResult> {
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

  const reuse = options.prefixCache && options.useCache !== false ? options.prefixCache : null;
  if (reuse && options.rowKeys?.length !== batch) throw new Error(`prefixCache needs one row key per prompt, got ${options.rowKeys?.length ?? 0} for ${batch}`);
  const prefill = await phase('prefill', () =>
    reuse ? prefillWithPrefixes(model, prompts, reuse, options.rowKeys!, padId) : prefillAll(model, prompts, padId, options.useCache !== false),
  );
  const { starts } = prefill;
  const width = promptWidth + maxNew;
  // Validity of every column the run can reach; generated columns are real for every row.
  const valid = new Uint8Array(batch * width);
  for (let b = 0; b < batch; b++) {
    for (let t = starts[b]; t < width; t++) valid[b * width + t] = 1;
  }
  const rows = prompts.map((p) => [...p]);

  let logits: tf.Tensor = prefill.logits;
  // On a backend that can, the whole decoding step stays on the device: the reply's KV cache is
  // allocated once at its final size, and only the sampled ids (and logprobs) are read back.
  const session = options.useCache !== false && prefill.cache ? startSession(model, batch, prefill.cache, valid, width, promptWidth + maxNew - 1) : null;
  const deviceSampling = session !== null;
  const rowSampling = fusedKernels().headSoftmax?.sample;
  // The prompt's keys and values stay as they are; only the reply's own cache grows per step.
  const promptCache: KVCache | undefined = prefill.cache && !session && model.prepareFrozenCache ? model.prepareFrozenCache(prefill.cache) : prefill.cache;
  let replyCache: KVCache | undefined;
  // The ids fed next, on the device: [batch, k] floats with the id in column 0.
  // Assigned inside the decoding phase's closure, which narrowing does not see.
  let fedIds = null as tf.Tensor2D | null;
  try {
    /** Each row's position when fed the token sampled at `step`. */
    const positionsAfter = (step: number) => {
      const positions = new Int32Array(batch);
      for (let b = 0; b < batch; b++) positions[b] = promptWidth + step - starts[b];
      return positions;
    };
    await phase('decode', async () => {
      for (let step = 0; step < maxNew; step++) {
        phaseCount('steps', 1);
        phaseCount('row steps', batch);
        const fed = new Int32Array(batch).fill(padId);
        let picks: Array<{ token: number; logprob: number } | null>;
        // The next step's logits, queued before this step's ids were read back.
        let ahead: tf.Tensor | null = null;
        if (deviceSampling) {
          const draws = new Float32Array(batch);
          if (!decoding.greedy) for (let b = 0; b < batch; b++) if (!stopped[b]) draws[b] = options.rng.next();
          const sampled = tf.tidy(() => session.sample(logits.reshape([batch, vocab]), tf.tensor1d(draws), decoding.temperature, decoding.greedy, decoding.topK, decoding.topP));
          fedIds?.dispose();
          fedIds = sampled;
          // The read is queued first; the next step needs only the sampled ids, which stay on
          // the device, so the GPU runs it while the ids travel back and the CPU checks stops.
          const pending = sampled.data();
          if (step < maxNew - 1) {
            ahead = tf.tidy(() => session.step(sampled, tf.tensor1d(positionsAfter(step), 'int32')));
            session.flush();
          }
          const data = (await pending) as Float32Array;
          picks = stopped.map((done, b) => (done ? null : { token: Math.round(data[2 * b]), logprob: data[2 * b + 1] }));
        } else if (rowSampling && decoding.topK === 0 && decoding.topP === 1) {
          // The draw where the logits are (wasm's memory): they are never copied into JavaScript.
          const draws = new Float32Array(batch).fill(-1);
          for (let b = 0; b < batch; b++) if (!stopped[b]) draws[b] = decoding.greedy ? 0 : Math.min(options.rng.next(), LARGEST_BELOW_ONE);
          const data = rowSampling(logits, batch, vocab, draws, decoding.temperature, decoding.greedy);
          picks = stopped.map((done, b) => (done ? null : { token: data[2 * b], logprob: data[2 * b + 1] }));
        } else {
          const data = (await logits.data()) as Float32Array;
          picks = stopped.map((done, b) => (done ? null : pickToken(data, b * vocab, vocab, decoding, options.rng)));
        }
        for (let b = 0; b < batch; b++) {
          const pick = picks[b];
          if (!pick) continue;
          tokens[b].push(pick.token);
          logprobs[b].push(pick.logprob);
          rows[b].push(pick.token);
          fed[b] = pick.token;
          if (stop.has(pick.token) || stopSequences.some((s) => endsWithIds(tokens[b], s))) stopped[b] = true;
        }
        if (stopped.every(Boolean) || step === maxNew - 1) {
          ahead?.dispose();
          break;
        }
        const previous = logits;
        const keys = promptWidth + step + 1;
        const positions = positionsAfter(step);
        if (ahead) {
          logits = ahead;
        } else if (session) {
          const ids = tf.tensor2d(Float32Array.from(fed), [batch, 1]);
          logits = tf.tidy(() => session.step(ids, tf.tensor1d(positions, 'int32')));
          ids.dispose();
        } else if (options.useCache === false) {
          logits = tf.tidy(() => {
            const input = forwardInputs(packRows(rows, 'left', padId));
            return model.forward(input, { logits: true, values: false, lastPositionOnly: true }).logits!;
          });
        } else {
          const oldCache = replyCache;
          const next = tf.tidy(() => {
            const keyValid = new Uint8Array(batch * keys);
            for (let b = 0; b < batch; b++) keyValid.set(valid.subarray(b * width, b * width + keys), b * keys);
            const out = model.forward(
              {
                tokens: tf.tensor2d(fed, [batch, 1], 'int32'),
                positions: tf.tensor2d(positions, [batch, 1], 'int32'),
                bias: tf.tensor4d(attentionBias(keyValid, batch, keys, 1), [batch, 1, 1, keys]),
                cache: oldCache,
                frozenCache: promptCache,
              },
              { logits: true, values: false, returnCache: true },
            );
            return [out.logits!, ...flattenCache(out.cache!)];
          });
          logits = next[0];
          replyCache = unflattenCache(next.slice(1));
          if (oldCache) disposeCache(oldCache);
        }
        previous.dispose();
      }
    });
    if (session) replyCache = session.replyCache();
    if (reuse && promptCache) await phase('prefix store', () => storeRows(reuse, options.rowKeys!, prompts, tokens, starts, promptCache, replyCache));
  } finally {
    logits.dispose();
    fedIds?.dispose();
    session?.dispose();
    if (promptCache) disposeCache(promptCache);
    if (replyCache) disposeCache(replyCache);
  }
  return { tokens, logprobs, stopped };
}

/**
 * The model's decoding session for this rollout, if it has one: `keys` key columns (the prompt's
 * and every fed token's), whose bias is fixed for the rollout.
 */
function startSession(model: LanguageModel, batch: number, promptCache: KVCache, valid: Uint8Array, width: number, keys: number): DecodingSession | null {
  if (!model.startDecoding) return null;
  const keyValid = new Uint8Array(batch * keys);
  for (let b = 0; b < batch; b++) keyValid.set(valid.subarray(b * width, b * width + keys), b * keys);
  const promptColumns = promptCache[0].k.shape[2];
  return model.startDecoding(batch, { promptCache, columns: keys - promptColumns, bias: attentionBias(keyValid, batch, keys, 1) });
}

interface Prefill {
  /** [batch, 1, vocab] logits at each prompt's last token. */
  logits: tf.Tensor;
  /** Keys and values of every prompt column (absent without the cache). */
  cache?: KVCache;
  /** Column of each row's first token: prompts are left-aligned to end in the same column. */
  starts: number[];
}

/** Encodes every prompt from scratch. */
function prefillAll(model: LanguageModel, prompts: readonly (readonly number[])[], padId: number, returnCache: boolean): Prefill {
  const packed = packRows(prompts, 'left', padId);
  phaseCount('columns fed', packed.batch * packed.time);
  // tidy() keeps only what it returns, so the cache leaves each scope inside the result.
  const out = tf.tidy(() => {
    const result = model.forward(forwardInputs(packed), { logits: true, values: false, lastPositionOnly: true, returnCache });
    return [result.logits!, ...flattenCache(result.cache ?? [])];
  });
  return { logits: out[0], cache: returnCache ? unflattenCache(out.slice(1)) : undefined, starts: packed.starts };
}

/**
 * Encodes only what follows each prompt's stored prefix. Prompts stay left-padded to end in the
 * same column W; the last F columns (F = the most new tokens any row has) are fed, and the
 * columns before them come from stored keys and values. A row whose stored prefix reaches into
 * those F columns simply has those tokens encoded again, which is exact; so is a pad column,
 * whose keys are zero and masked.
 */
function prefillWithPrefixes(model: LanguageModel, prompts: readonly (readonly number[])[], store: PrefixCache, keys: readonly number[], padId: number): Prefill {
  const shared = store.sharedPrefixToEncode(keys, prompts);
  if (shared) {
    phaseCount('shared prefix tokens', shared.length);
    store.setShared(shared, encodePrefix(model, shared));
  }
  const batch = prompts.length;
  const width = Math.max(...prompts.map((p) => p.length));
  // At least the last token of every prompt is fed: its logits start the reply.
  const matches = prompts.map((prompt, b) => {
    const match = store.match(keys[b], prompt);
    return match ? { entry: match.entry, length: Math.min(match.length, prompt.length - 1) } : null;
  });
  const fresh = Math.max(...prompts.map((prompt, b) => prompt.length - (matches[b]?.length ?? 0)));
  const past = width - fresh;
  if (past === 0) return prefillAll(model, prompts, padId, true);
  phaseCount('columns fed', batch * fresh);
  phaseCount('columns reused', batch * past);
  const starts = prompts.map((p) => width - p.length);
  const ids = new Int32Array(batch * fresh).fill(padId);
  const positions = new Int32Array(batch * fresh);
  const valid = new Uint8Array(batch * width);
  prompts.forEach((prompt, b) => {
    for (let t = starts[b]; t < width; t++) valid[b * width + t] = 1;
    for (let q = 0; q < fresh; q++) {
      const position = past + q - starts[b];
      if (position < 0) continue;
      ids[b * fresh + q] = prompt[position];
      positions[b * fresh + q] = position;
    }
  });
  const out = tf.tidy(() => {
    const pastCache = gatherPast(prompts.map((prompt, b) => ({ entry: matches[b]?.entry ?? null, length: prompt.length - fresh })), past);
    const result = model.forward(
      {
        tokens: tf.tensor2d(ids, [batch, fresh], 'int32'),
        positions: tf.tensor2d(positions, [batch, fresh], 'int32'),
        bias: tf.tensor4d(attentionBias(valid, batch, width, fresh), [batch, 1, fresh, width]),
        cache: pastCache,
      },
      { logits: true, values: false, lastPositionOnly: true, returnCache: true },
    );
    return [result.logits!, ...flattenCache(result.cache!)];
  });
  return { logits: out[0], cache: unflattenCache(out.slice(1)), starts };
}

/** Keys and values of `ids` as a batch of one (the prefix every prompt shares). */
function encodePrefix(model: LanguageModel, ids: readonly number[]): KVCache {
  const out = tf.tidy(() => {
    const result = model.forward(forwardInputs(packRows([ids], 'left')), { logits: false, values: false, lastPositionOnly: true, returnCache: true });
    return flattenCache(result.cache!);
  });
  return unflattenCache(out);
}

/**
 * Stores each row's prompt and reply, except the reply's last token, which was never fed: the
 * next turn's prompt starts with them, so only the tokens after them get encoded. The rows stay
 * where this call computed them, prompt and reply columns side by side in one block per layer.
 */
function storeRows(
  store: PrefixCache,
  keys: readonly number[],
  prompts: readonly (readonly number[])[],
  tokens: number[][],
  starts: number[],
  promptCache: KVCache,
  replyCache: KVCache | undefined,
): void {
  const replyColumns = replyCache?.[0].k.shape[2] ?? 0;
  const joined = (prompt: tf.Tensor4D, reply: tf.Tensor4D | undefined) => (reply && replyColumns > 0 ? tf.concat([prompt, reply], 2) : prompt.clone());
  const block = tf.tidy(() => flattenCache(promptCache.map((layer, i) => ({ k: joined(layer.k, replyCache?.[i].k), v: joined(layer.v, replyCache?.[i].v) }))));
  store.storeBlock(
    unflattenCache(block),
    prompts.map((prompt, b) => {
      const replied = Math.min(Math.max(0, tokens[b].length - 1), replyColumns);
      return { key: keys[b], ids: [...prompt, ...tokens[b].slice(0, replied)], row: b, offset: starts[b] };
    }),
  );
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
  for (const layer of cache) tf.dispose([layer.k, layer.v, ...(layer.keysByDim ? [layer.keysByDim] : [])]);
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
 * The probabilities of the row being drawn, reused across calls: a fresh vocabulary-sized array
 * per token (1.2 MB for Qwen's vocabulary) cost the garbage collector about as long as the draw.
 */
let scratch = new Float64Array(0);

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
  if (scratch.length < vocab) scratch = new Float64Array(vocab);
  const probs = scratch;
  let sum = 0;
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
  // Without truncation the kept mass is the sum above, added in the same order: the same number.
  let total = order ? 0 : sum;
  if (order) for (let j = 0; j < count; j++) total += probs[order[j]];
  const target = rng.next() * total;
  let cumulative = 0;
  let token = order ? order[count - 1] : vocab - 1;
  if (order) {
    for (let j = 0; j < count; j++) {
      cumulative += probs[order[j]];
      if (target < cumulative) {
        token = order[j];
        break;
      }
    }
  } else {
    for (let j = 0; j < count; j++) {
      cumulative += probs[j];
      if (target < cumulative) {
        token = j;
        break;
      }
    }
  }
  return { token, logprob: logprobOf(token) };
}
