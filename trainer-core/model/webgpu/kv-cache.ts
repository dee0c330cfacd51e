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
 * Lengths and columns are uniforms, so one pipeline serves every step of every rollout.
 */
import * as tf from '@tensorflow/tfjs';
import type { WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';
import { onlineSoftmaxLoop } from './online-softmax';
import { ROW_THREADS, groupProgram, registerProgramKernel, runKernel } from './program';

const ATTEND = 'TurnLabCachedDecodeAttention';
/** Largest head dimension: each of the ROW_THREADS threads owns two output columns. */
export const MAX_HEAD_DIM = 2 * ROW_THREADS;

interface WebgpuBackendLike {
  runWebGPUProgram(program: WebGPUProgram, inputs: tf.TensorInfo[], dtype: tf.DataType, uniforms: Array<{ type: string; data: number[] }>, output: tf.TensorInfo): tf.TensorInfo;
}

/** The rotary angle of element e of a head at `position` (the reference's f32 product, then cos/sin). */
const ROTATE = `
      fn turned(value : f32, partner : f32, e : i32, half : i32, position : i32) -> f32 {
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
 * of `cache`, in place. positions [batch] int32, freq [headDim / 2].
 */
export function writeReplyCache(cache: tf.Tensor, qkv: tf.Tensor2D, positions: tf.Tensor, freq: tf.Tensor, column: number, qColumns: number): void {
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
    uniforms: 'threads : i32, column : i32, qColumns : i32,',
    getUserCode: () => `
      ${ROTATE}
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
          let partner = Qkv[base + select(e - half, e + half, e < half)];
          value = turned(value, partner, e, half, Positions[b]);
        }
        result[(((part * batch + b) * kvHeads + h) * columns + uniforms.column) * dim + e] = value;
      }`,
  };
  const backend = tf.backend() as unknown as WebgpuBackendLike;
  backend.runWebGPUProgram(program, [qkv, positions, freq], 'float32', [{ type: 'int32', data: [threads] }, { type: 'int32', data: [column] }, { type: 'int32', data: [qColumns] }], cache);
}

export function registerKvCacheKernels(): void {
  registerProgramKernel(ATTEND, ({ qkv, positions, freq, cache, bias, fk, fv }, { heads, used }) => {
    const batch = qkv.shape[0];
    const program = groupProgram(
      'cached_decode_attention',
      ['Qkv', 'Positions', 'Freq', 'Cache', 'Bias', 'FK', 'FV'],
      [batch, heads * cache.shape[3]],
      batch * heads,
      `var<workgroup> scores : array<f32, ${ROW_THREADS}>;
      var<workgroup> query : array<f32, ${MAX_HEAD_DIM}>;
      ${ROTATE}
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
        for (var e = tid; e < dim; e = e + ${ROW_THREADS}) {
          let partner = Qkv[qBase + select(e - half, e + half, e < half)];
          query[e] = turned(Qkv[qBase + e], partner, e, half, position);
        }
        workgroupBarrier();
        let scale = 1.0 / sqrt(f32(dim));
        let biasWidth = uniforms.biasShape.y;
        ${onlineSoftmaxLoop(`scoreOf(j, bRead, kvHead, scale, biasWidth)`, (key, e) => `readKV(1, bRead, kvHead, ${key}, ${e})`)}
        let out = b * heads * dim + head * dim;
        if (valid && tid < dim) { result[out + tid] = acc0 / total; }
        if (valid && col1 < dim) { result[out + col1] = acc1 / total; }`,
      'heads : i32, used : i32,',
    );
    return {
      program,
      inputs: [qkv, positions, freq, cache, bias, fk, fv],
      uniforms: [
        { type: 'int32', data: [heads] },
        { type: 'int32', data: [used] },
      ],
    };
  });
}

/**
 * Attention of each row's new token (q in the first heads * headDim columns of qkv) over the
 * frozen prompt cache fk, fv [batch, kvHeads, prompt, headDim] and the first `used` columns of
 * the reply cache; bias [batch, prompt + cache columns]. Returns [batch, heads * headDim].
 */
export function cachedDecodeAttention(qkv: tf.Tensor2D, positions: tf.Tensor, freq: tf.Tensor, cache: tf.Tensor, bias: tf.Tensor2D, frozen: { k: tf.Tensor4D; v: tf.Tensor4D }, heads: number, used: number): tf.Tensor2D {
  return runKernel(ATTEND, { qkv, positions, freq, cache, bias, fk: frozen.k, fv: frozen.v }, { heads, used }) as tf.Tensor2D;
}
