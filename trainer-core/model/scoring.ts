/**
 * Full forward-pass scores of given token rows: the per-token logprobs that PPO's ratio, the KL
 * term and the sampler check use, entropies, and critic values.
 *
 * The LM head runs only where a token is scored (every real token, or the columns of `scored`),
 * in chunks of rows (chunked-head.ts): a batch of 600-token rows over a 151,936-id vocabulary
 * never holds its [tokens, vocab] logits. `fullLogits` keeps the plain path (every position's
 * logits, then a log-softmax) as the reference the chunked one is tested against.
 *
 * Alignment: column t of every output describes the state just before token t (the prefix
 * tokens[0..t-1]): logprobs[t] = log pi(tokens[t] | prefix), entropy[t] = entropy of that
 * distribution, values[t] = V(prefix). Column 0 has no prefix and holds 0, as do columns past a
 * row's length. Logprobs and entropy are under softmax(logits / temperature), the distribution
 * the sampler records (verl computes old_log_prob the same way, without top-k/top-p).
 */
import * as tf from '@tensorflow/tfjs';
import { oneHotFloat } from './blocks/embedding';
import { scoreThroughHead } from './chunked-head';
import type { ForwardOutput, LmHead } from './forward';
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
  /**
   * Per row, 1 at the columns whose logprob and entropy are wanted (the loss mask); the others
   * hold 0. Without it every real column from 1 on is scored.
   */
  scored?: readonly ArrayLike<number>[];
  /** Recompute each layer's activations in the backward pass (see ForwardOptions.checkpointLayers). */
  checkpointLayers?: boolean;
  /** Elements of one chunk of the LM head's logits (see chunked-head.ts). */
  chunkElements?: number;
  /** See HeadScoreOptions.transposedCopy. */
  transposedCopy?: boolean;
  /** Compute every position's logits (the reference path; memory grows with time x vocabulary). */
  fullLogits?: boolean;
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
  const scored = options.scored;
  const documentScored = scored ? spans.flatMap((row, b) => row.map((span) => Array.from({ length: span.length }, (_, t) => scored[b][span.start + t]))) : undefined;
  const scores = scoreRows(model, documentRows, { ...options, documents: undefined, scored: documentScored });
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
  const wantHead = wantLogprobs || wantEntropy;
  const chunked = wantHead && options.fullLogits !== true && model.lmHead !== undefined;
  const outputs = { logits: wantHead && !chunked, hidden: chunked, values: wantValues, checkpointLayers: options.checkpointLayers };
  const out = shared > 0 ? forwardSharingPrefix(model, packed, shared, outputs) : forwardAll(model, packed, outputs);
  const scores: TokenScores = {};
  // Zero for column 0 and for columns past each row's end.
  const keep = tf.tensor2d(shiftedValidity(packed.valid, batch, time), [batch, time]);
  const shiftRight = (x: tf.Tensor2D) => tf.pad(x.slice([0, 0], [batch, time - 1]), [[0, 0], [1, 0]]).mul(keep) as tf.Tensor2D;
  if (out.hidden) {
    const picked = scoredColumns(packed, options.scored);
    if (picked.columns.length === 0) {
      if (wantLogprobs) scores.logprobs = tf.zeros([batch, time]);
      if (wantEntropy) scores.entropy = tf.zeros([batch, time]);
    } else {
      const width = out.hidden.shape[2];
      // Column t is scored from the hidden state at t - 1.
      const states = gatherRows(out.hidden.reshape([batch * time, width]) as tf.Tensor2D, picked.columns.map((c) => c - 1));
      const head = scoreThroughHead(states, picked.targets, lmHeadOf(model), { temperature, chunkElements: options.chunkElements, transposedCopy: options.transposedCopy });
      if (wantLogprobs) scores.logprobs = scatterColumns(head.logprobs, picked.columns, batch, time);
      if (wantEntropy) scores.entropy = scatterColumns(head.entropy, picked.columns, batch, time);
    }
  }
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

interface Outputs {
  logits: boolean;
  hidden: boolean;
  values: boolean;
  checkpointLayers?: boolean;
}

function lmHeadOf(model: LanguageModel): LmHead {
  return model.lmHead!();
}

/** Flat column indices (b * time + t) to score, and the token at each. */
function scoredColumns(packed: PackedRows, scored: ScoreOptions['scored']): { columns: number[]; targets: Int32Array } {
  const { batch, time } = packed;
  if (scored && scored.length !== batch) throw new Error(`${batch} token rows but ${scored.length} rows of scored columns`);
  const columns: number[] = [];
  for (let b = 0; b < batch; b++) {
    for (let t = 1; t < packed.lengths[b]; t++) if (!scored || scored[b][t]) columns.push(b * time + t);
  }
  return { columns, targets: Int32Array.from(columns, (c) => packed.ids[c]) };
}

/** Rows of x at `indices`, with a scatter for the gradient (gather's own needs a kernel wasm lacks). */
function gatherRows(x: tf.Tensor2D, indices: number[]): tf.Tensor2D {
  const ids = tf.tensor1d(indices, 'int32');
  const op = tf.customGrad((...args) => {
    (args[1] as tf.GradSaveFunc)([ids]);
    return {
      value: tf.gather(args[0] as tf.Tensor2D, ids),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.scatterND(saved[0].reshape([-1, 1]), dy, x.shape),
    };
  });
  return op(x) as tf.Tensor2D;
}

/** A [batch, time] tensor holding `values` at the flat `columns` and 0 elsewhere. */
function scatterColumns(values: tf.Tensor1D, columns: number[], batch: number, time: number): tf.Tensor2D {
  const ids = tf.tensor1d(columns, 'int32');
  const op = tf.customGrad((...args) => {
    (args[1] as tf.GradSaveFunc)([ids]);
    return {
      value: tf.scatterND(ids.reshape([-1, 1]), args[0] as tf.Tensor1D, [batch * time]).reshape([batch, time]),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.gather(dy.reshape([-1]), saved[0]),
    };
  });
  return op(values) as tf.Tensor2D;
}

function forwardAll(model: LanguageModel, packed: PackedRows, outputs: Outputs): ForwardOutput {
  const input = forwardInputs(packed);
  const out = model.forward(input, outputs);
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
function forwardSharingPrefix(model: LanguageModel, packed: PackedRows, shared: number, outputs: Outputs): ForwardOutput {
  const { batch, time } = packed;
  const rest = time - shared;
  const head = model.forward(forwardInputs(packRows([Array.from(packed.ids.subarray(0, shared))], 'right')), { ...outputs, returnCache: true });
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
    outputs,
  );
  const out: ForwardOutput = {};
  if (head.logits && tail.logits) out.logits = tf.concat([head.logits.tile([batch, 1, 1]), tail.logits], 1) as tf.Tensor3D;
  if (head.hidden && tail.hidden) out.hidden = tf.concat([head.hidden.tile([batch, 1, 1]), tail.hidden], 1) as tf.Tensor3D;
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
