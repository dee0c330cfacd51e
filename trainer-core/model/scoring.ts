/**
 * Full forward-pass scores of given token rows: the per-token logprobs that PPO's ratio, the KL
 * term and the sampler check use, entropies, and critic values.
 *
 * Alignment: column t of every output describes the state just before token t (the prefix
 * tokens[0..t-1]): logprobs[t] = log pi(tokens[t] | prefix), entropy[t] = entropy of that
 * distribution, values[t] = V(prefix). Column 0 has no prefix and holds 0, as do columns past a
 * row's length. Logprobs and entropy are under softmax(logits / temperature), the distribution
 * the sampler records (verl computes old_log_prob the same way, without top-k/top-p).
 */
import * as tf from '@tensorflow/tfjs';
import { oneHotFloat, type ForwardOutput } from './transformer';
import type { LanguageModel } from './language-model';
import { attentionBias, forwardInputs, packRows, type PackedRows } from './batch';

export interface ScoreOptions {
  /** Temperature of the scored distribution; default 1. */
  temperature?: number;
  logprobs?: boolean;
  entropy?: boolean;
  values?: boolean;
  /**
   * Document id of every token, per row: non-decreasing from 0. A row may hold several documents
   * (the turns of a windowed episode, each in the context it was sampled in); each document is
   * scored exactly as it would be alone. Without it each row is one document.
   */
  documents?: readonly (readonly number[])[];
  /**
   * Encode the prefix every row shares (system prompt, instructions) once and broadcast its keys
   * and values; default true. Exact: a causal prefix's states do not depend on what follows, and
   * the broadcast's gradient sums the rows' contributions as separate copies would.
   */
  sharePrefix?: boolean;
}

/** A shared prefix shorter than this costs more in extra ops than it saves. */
const MIN_SHARED_PREFIX = 16;

export interface TokenScores {
  /** [batch, time] */
  logprobs?: tf.Tensor2D;
  entropy?: tf.Tensor2D;
  values?: tf.Tensor2D;
}

/**
 * Scores ragged rows (right-padded internally). Differentiable: call it inside a loss function
 * for tf.variableGrads, or inside tf.tidy and keep what you need.
 */
export function scoreTokens(model: LanguageModel, rows: readonly (readonly number[])[], options: ScoreOptions = {}): TokenScores {
  const spans = options.documents ? documentSpans(rows, options.documents) : null;
  if (!spans || spans.every((row) => row.length <= 1)) return scoreRows(model, rows, options);
  // Each document becomes a row of its own: attention then costs the square of a document's
  // length, not of the whole packed row's, and no mask is needed between documents.
  const documentRows = spans.flatMap((row, b) => row.map((span) => rows[b].slice(span.start, span.start + span.length)));
  const scores = scoreRows(model, documentRows, { ...options, documents: undefined });
  const time = Math.max(...rows.map((row) => row.length));
  const unpack = (x: tf.Tensor2D): tf.Tensor2D => {
    let next = 0;
    const packedRows = spans.map((row, b) => {
      const parts: tf.Tensor2D[] = row.map((span) => x.slice([next++, 0], [1, span.length]));
      if (rows[b].length < time) parts.push(tf.zeros([1, time - rows[b].length]));
      return parts.length === 1 ? parts[0] : tf.concat(parts, 1);
    });
    return packedRows.length === 1 ? packedRows[0] : tf.concat(packedRows, 0);
  };
  const out: TokenScores = {};
  for (const key of ['logprobs', 'entropy', 'values'] as const) {
    const x = scores[key];
    if (x) out[key] = unpack(x);
  }
  return out;
}

interface Span {
  start: number;
  length: number;
}

/** The documents of each row as column spans, checking the ids. */
function documentSpans(rows: readonly (readonly number[])[], documents: readonly (readonly number[])[]): Span[][] {
  if (documents.length !== rows.length) throw new Error(`${rows.length} token rows but ${documents.length} document rows`);
  return rows.map((row, b) => {
    const ids = documents[b];
    if (ids.length !== row.length) throw new Error(`row ${b} has ${row.length} tokens but ${ids.length} document ids`);
    const spans: Span[] = [];
    for (let t = 0; t < row.length; t++) {
      if (t > 0 && ids[t] < ids[t - 1]) throw new Error(`row ${b}: document ids must not decrease (token ${t})`);
      if (t === 0 || ids[t] !== ids[t - 1]) spans.push({ start: t, length: 0 });
      spans[spans.length - 1].length++;
    }
    return spans;
  });
}

function scoreRows(model: LanguageModel, rows: readonly (readonly number[])[], options: ScoreOptions): TokenScores {
  const temperature = options.temperature ?? 1;
  if (!(temperature > 0)) throw new Error(`Scoring temperature must be > 0, got ${temperature}`);
  const wantLogprobs = options.logprobs ?? model.config.lmHead;
  const wantEntropy = options.entropy ?? false;
  const wantValues = options.values ?? false;
  const packed = packRows(rows, 'right', 0);
  const { batch, time } = packed;
  const shared = options.sharePrefix === false ? 0 : sharedPrefixLength(rows);
  const out = shared > 0
    ? forwardSharingPrefix(model, packed, shared, wantLogprobs || wantEntropy, wantValues)
    : forwardAll(model, packed, wantLogprobs || wantEntropy, wantValues);
  const scores: TokenScores = {};
  // Zero for column 0 and for columns past each row's end.
  const keep = tf.tensor2d(shiftedValidity(packed.valid, batch, time), [batch, time]);
  const shiftRight = (x: tf.Tensor2D) => tf.pad(x.slice([0, 0], [batch, time - 1]), [[0, 0], [1, 0]]).mul(keep) as tf.Tensor2D;
  if (out.logits) {
    const vocab = model.config.vocabSize;
    const scaled = temperature === 1 ? out.logits : out.logits.div(temperature);
    const logp = tf.logSoftmax(scaled);
    if (wantLogprobs) {
      // One-hot product instead of gather: gather's gradient is missing on wasm.
      const next = tf.tensor2d(packed.ids, [batch, time], 'int32').slice([0, 1], [batch, time - 1]);
      const picked = logp.slice([0, 0, 0], [batch, time - 1, vocab]).mul(oneHotFloat(next, vocab)).sum(-1);
      scores.logprobs = tf.pad(picked as tf.Tensor2D, [[0, 0], [1, 0]]).mul(keep) as tf.Tensor2D;
    }
    if (wantEntropy) scores.entropy = shiftRight(logp.exp().mul(logp).sum(-1).neg() as tf.Tensor2D);
  }
  if (out.values) scores.values = shiftRight(out.values);
  return scores;
}

function forwardAll(model: LanguageModel, packed: PackedRows, logits: boolean, values: boolean): ForwardOutput {
  const input = forwardInputs(packed);
  const out = model.forward(input, { logits, values });
  tf.dispose([input.tokens, input.positions, input.bias]);
  return out;
}

/** Longest prefix all rows share, leaving every row at least one token of its own; 0 when not worth it. */
function sharedPrefixLength(rows: readonly (readonly number[])[]): number {
  if (rows.length < 2) return 0;
  let length = Math.min(...rows.map((row) => row.length)) - 1;
  for (const row of rows) {
    let i = 0;
    while (i < length && row[i] === rows[0][i]) i++;
    length = i;
  }
  return length >= MIN_SHARED_PREFIX ? length : 0;
}

/**
 * The same outputs as forwardAll for right-padded rows whose first `shared` tokens agree: the
 * prefix runs once as a batch of one, its keys and values are tiled to the batch for the rest
 * of the rows, and its outputs are tiled in front of theirs.
 */
function forwardSharingPrefix(model: LanguageModel, packed: PackedRows, shared: number, logits: boolean, values: boolean): ForwardOutput {
  const { batch, time } = packed;
  const rest = time - shared;
  const head = model.forward(forwardInputs(packRows([Array.from(packed.ids.subarray(0, shared))], 'right')), { logits, values, returnCache: true });
  const ids = new Int32Array(batch * rest);
  const positions = new Int32Array(batch * rest);
  for (let b = 0; b < batch; b++) {
    for (let t = 0; t < rest; t++) {
      ids[b * rest + t] = packed.ids[b * time + shared + t];
      positions[b * rest + t] = packed.positions[b * time + shared + t];
    }
  }
  const tail = model.forward(
    {
      tokens: tf.tensor2d(ids, [batch, rest], 'int32'),
      positions: tf.tensor2d(positions, [batch, rest], 'int32'),
      bias: tf.tensor4d(attentionBias(packed.valid, batch, time, rest), [batch, 1, rest, time]),
      cache: head.cache!.map((layer) => ({ k: layer.k.tile([batch, 1, 1, 1]) as tf.Tensor4D, v: layer.v.tile([batch, 1, 1, 1]) as tf.Tensor4D })),
    },
    { logits, values },
  );
  const out: ForwardOutput = {};
  if (head.logits && tail.logits) out.logits = tf.concat([head.logits.tile([batch, 1, 1]), tail.logits], 1) as tf.Tensor3D;
  if (head.values && tail.values) out.values = tf.concat([head.values.tile([batch, 1]), tail.values], 1) as tf.Tensor2D;
  return out;
}

function shiftedValidity(valid: Uint8Array, batch: number, time: number): Float32Array {
  const keep = new Float32Array(batch * time);
  for (let b = 0; b < batch; b++) {
    for (let t = 1; t < time; t++) keep[b * time + t] = valid[b * time + t];
  }
  return keep;
}
