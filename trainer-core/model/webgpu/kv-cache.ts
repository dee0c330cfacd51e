/**
 * A reply's KV cache allocated once per rollout at its final size, [2 * batch (keys, then
 * values), kvHeads, columns, headDim], and the two kernels of a decoding step that use it:
 *
 * - write: the new token's k (turned by its rotary angle) and v, taken from the packed q|k|v
 *   projection, stored at column `column` IN PLACE (the program's output is the cache itself,
 *   so nothing is copied or reallocated, where the reference concatenates the whole cache twice
 *   per layer per step);
 * - attend: one new token per row, q turned by its rotary angle inside the kernel, over the
 *   prompt's frozen keys and then the first `used` columns of the cache, with the rollout's
 *   additive bias [batch, prompt + columns] (uploaded once per rollout) and grouped-query heads.
 *
 * Lengths and columns are uniforms, so one pipeline serves every step of every rollout; the two
 * that move with the step are marked `perStep` for a recorded step (step-recorder.ts).
 */
import * as tf from '@tensorflow/tfjs';
import type { WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';
import { onlineSoftmaxLoop } from './online-softmax';
import { ROW_THREADS, groupProgram, registerProgramKernel, runKernel, type Uniform } from './program';

const ATTEND = 'TurnLabCachedDecodeAttention';
/** Largest head dimension: each of the ROW_THREADS threads owns two output columns. */
export const MAX_HEAD_DIM = 2 * ROW_THREADS;

interface WebgpuBackendLike {
  runWebGPUProgram(program: WebGPUProgram, inputs: tf.TensorInfo[], dtype: tf.DataType, uniforms: Uniform[], output: tf.TensorInfo): tf.TensorInfo;
}

/**
 * Qwen3's qk-norm, RMSNorm over a head before it turns, whose weights follow the frequencies in
 * the same table (`Freq` is [half] without the norm, [half + dim] with it).
 */
const QK_NORM = `
      fn inverseRms(base : i32, dim : i32) -> f32 {
        var s = 0.0;
        for (var i = 0; i < dim; i = i + 1) { let v = Qkv[base + i]; s = s + v * v; }
        return 1.0 / sqrt(s / f32(dim) + uniforms.eps);
      }
      fn headValue(base : i32, e : i32, dim : i32, r : f32) -> f32 {
        if (uniforms.normed == 0) { return Qkv[base + e]; }
        return Qkv[base + e] * r * Freq[dim / 2 + e];
      }`;
/**
 * The rotary angle of element e of a head at `position` (the reference's f32 product, then
 * cos/sin); none where the model has learned positions instead (`turn` 0).
 */
const TURN = `
      fn turned(value : f32, partner : f32, e : i32, half : i32, position : i32) -> f32 {
        if (uniforms.turn == 0) { return value; }
        let pair = e % half;
        let angle = f32(position) * Freq[pair];
        let c = cos(angle);
        let s = sin(angle);
        if (e < half) { return value * c - partner * s; }
        return partner * s + value * c;
      }`;

/** A zeroed cache for `columns` new tokens of `batch` rows. */
export function allocateReplyCache(batch: number, kvHeads: number, columns: number, headDim: number): tf.Tensor {
  return tf.zeros([2 * batch, kvHeads, columns, headDim]);
}

/**
 * Stores the rotated k and the v of each row's new token (from qkv [batch, q + 2 kv]) at `column`
 * of `cache`, in place. positions [batch] int32, freq [headDim / 2], or [headDim / 2 + headDim]
 * with k's qk-norm weights after the frequencies (normalised with `eps`).
 */
export function writeReplyCache(cache: tf.Tensor, qkv: tf.Tensor2D, positions: tf.Tensor, freq: tf.Tensor, column: number, qColumns: number, eps = 0, rotate = true): void {
  const [doubled, kvHeads, columns, headDim] = cache.shape;
  const batch = doubled / 2;
  if (column >= columns) throw new Error(`KV cache column ${column} is past its ${columns} columns`);
  const threads = 2 * batch * kvHeads * headDim;
  const workgroupSize: [number, number, number] = [64, 1, 1];
  const program: WebGPUProgram = {
    shaderKey: 'turnlab_write_reply_cache',
    variableNames: ['Qkv', 'Positions', 'Freq'],
    outputShape: [...cache.shape],
    dispatchLayout: { x: [0, 1, 2, 3] },
    dispatch: [Math.ceil(threads / workgroupSize[0]), 1, 1],
    workgroupSize,
    uniforms: 'threads : i32, column : i32, qColumns : i32, normed : i32, eps : f32, turn : i32,',
    getUserCode: () => `
      ${QK_NORM}
      ${TURN}
      fn main(index : i32) {
        if (index >= uniforms.threads) { return; }
        let batch = uniforms.outShape.x / 2;
        let kvHeads = uniforms.outShape.y;
        let columns = uniforms.outShape.z;
        let dim = uniforms.outShape.w;
        let perPart = batch * kvHeads * dim;
        let part = index / perPart;
        let rest = index - part * perPart;
        let b = rest / (kvHeads * dim);
        let hd = rest - b * kvHeads * dim;
        let h = hd / dim;
        let e = hd - h * dim;
        let half = dim / 2;
        let base = b * uniforms.qkvShape.y + uniforms.qColumns + part * kvHeads * dim + h * dim;
        var value = Qkv[base + e];
        if (part == 0) {
          let r = select(1.0, inverseRms(base, dim), uniforms.normed != 0);
          let partner = headValue(base, select(e - half, e + half, e < half), dim, r);
          value = turned(headValue(base, e, dim, r), partner, e, half, Positions[b]);
        }
        result[(((part * batch + b) * kvHeads + h) * columns + uniforms.column) * dim + e] = value;
      }`,
  };
  const backend = tf.backend() as unknown as WebgpuBackendLike;
  const normed = freq.shape[0] > headDim / 2 ? 1 : 0;
  const uniforms = [
    { type: 'int32', data: [threads] },
    { type: 'int32', data: [column], perStep: 1 },
    { type: 'int32', data: [qColumns] },
    { type: 'int32', data: [normed] },
    { type: 'float32', data: [eps] },
    { type: 'int32', data: [rotate ? 1 : 0] },
  ];
  backend.runWebGPUProgram(program, [qkv, positions, freq], 'float32', uniforms, cache);
}

export function registerKvCacheKernels(): void {
  registerProgramKernel(ATTEND, ({ qkv, positions, freq, cache, bias, fk, fv }, { heads, used, eps, turn }) => {
    const batch = qkv.shape[0];
    const program = groupProgram(
      'cached_decode_attention',
      ['Qkv', 'Positions', 'Freq', 'Cache', 'Bias', 'FK', 'FV'],
      [batch, heads * cache.shape[3]],
      batch * heads,
      `var<workgroup> scores : array<f32, ${ROW_THREADS}>;
      var<workgroup> query : array<f32, ${MAX_HEAD_DIM}>;
      ${QK_NORM}
      ${TURN}
      fn readKV(part : i32, b : i32, h : i32, j : i32, e : i32) -> f32 {
        let kvHeads = uniforms.cacheShape.y;
        let dim = uniforms.cacheShape.w;
        let frozenKeys = uniforms.fKShape.z;
        if (j < frozenKeys) {
          let at = ((b * kvHeads + h) * frozenKeys + j) * dim + e;
          if (part == 0) { return FK[at]; }
          return FV[at];
        }
        let columns = uniforms.cacheShape.z;
        return Cache[(((part * uniforms.cacheShape.x / 2 + b) * kvHeads + h) * columns + j - frozenKeys) * dim + e];
      }
      fn scoreOf(j : i32, b : i32, kvHead : i32, scale : f32, biasWidth : i32) -> f32 {
        var dot = 0.0;
        for (var e = 0; e < uniforms.cacheShape.w; e = e + 1) { dot = dot + query[e] * scale * readKV(0, b, kvHead, j, e); }
        return dot + Bias[b * biasWidth + j];
      }`,
      `
        let heads = uniforms.heads;
        let kvHeads = uniforms.cacheShape.y;
        let dim = uniforms.cacheShape.w;
        let half = dim / 2;
        let keys = uniforms.fKShape.z + uniforms.used;
        let b = group / heads;
        let head = group % heads;
        let kvHead = head / (heads / kvHeads);
        let valid = b < uniforms.qkvShape.x;
        let bRead = min(b, uniforms.qkvShape.x - 1);
        let qBase = bRead * uniforms.qkvShape.y + head * dim;
        let position = Positions[bRead];
        let r = select(1.0, inverseRms(qBase, dim), uniforms.normed != 0);
        for (var e = tid; e < dim; e = e + ${ROW_THREADS}) {
          let partner = headValue(qBase, select(e - half, e + half, e < half), dim, r);
          query[e] = turned(headValue(qBase, e, dim, r), partner, e, half, position);
        }
        workgroupBarrier();
        let scale = 1.0 / sqrt(f32(dim));
        let biasWidth = uniforms.biasShape.y;
        ${onlineSoftmaxLoop(`scoreOf(j, bRead, kvHead, scale, biasWidth)`, (key, e) => `readKV(1, bRead, kvHead, ${key}, ${e})`)}
        let out = b * heads * dim + head * dim;
        if (valid && tid < dim) { result[out + tid] = acc0 / total; }
        if (valid && col1 < dim) { result[out + col1] = acc1 / total; }`,
      'heads : i32, used : i32, normed : i32, eps : f32, turn : i32,',
    );
    return {
      program,
      inputs: [qkv, positions, freq, cache, bias, fk, fv],
      uniforms: [
        { type: 'int32', data: [heads] },
        { type: 'int32', data: [used], perStep: 1 },
        { type: 'int32', data: [freq.shape[0] > cache.shape[3] / 2 ? 1 : 0] },
        { type: 'float32', data: [eps ?? 0] },
        { type: 'int32', data: [turn ?? 1] },
      ],
    };
  });
}

/**
 * Attention of each row's new token (q in the first heads * headDim columns of qkv) over the
 * frozen prompt cache fk, fv [batch, kvHeads, prompt, headDim] and the first `used` columns of
 * the reply cache; bias [batch, prompt + cache columns]; freq as for writeReplyCache, with q's
 * qk-norm weights. Returns [batch, heads * headDim].
 */
export function cachedDecodeAttention(qkv: tf.Tensor2D, positions: tf.Tensor, freq: tf.Tensor, cache: tf.Tensor, bias: tf.Tensor2D, frozen: { k: tf.Tensor4D; v: tf.Tensor4D }, heads: number, used: number, eps = 0, rotate = true): tf.Tensor2D {
  return runKernel(ATTEND, { qkv, positions, freq, cache, bias, fk: frozen.k, fv: frozen.v }, { heads, used, eps, turn: rotate ? 1 : 0 }) as tf.Tensor2D;
}
