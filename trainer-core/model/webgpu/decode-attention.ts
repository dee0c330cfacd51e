/**
 * Attention of new tokens over their KV cache, in one dispatch (decoding: one token per row;
 * prefill: every prompt position, the causal mask in the bias): a workgroup per (row, query
 * head, position) reads its grouped key/value head in place (no repeated keys), adds the
 * mask's bias and keeps a running softmax over chunks of ROW_THREADS keys, so no score matrix
 * is written. tfjs's reference: a scale, two batched matmuls, a bias add and a softmax (five
 * dispatches or more, plus reshapes that copy).
 *
 * A frozen cache (a prompt's keys, shared by every step of the reply) is read in place before
 * the reply's own keys, where the reference concatenates the two every step (two copies).
 * Head dimensions up to 2 x ROW_THREADS (128) are handled: each thread owns two output columns.
 */
import * as tf from '@tensorflow/tfjs';
import type { LayerCache } from '../blocks/tensor-shapes';
import { onlineSoftmaxLoop } from './online-softmax';
import { ROW_THREADS, groupProgram, registerProgramKernel, runKernel } from './program';

const DECODE = 'TurnLabDecodeAttention';

/** Reads of key/value element e of key j, over [frozen keys, own keys] or own keys alone. */
function readers(frozen: boolean): string {
  const own = (t: string) => `${t}[(kvRow * ownKeys + j - frozenKeys) * dim + e]`;
  const read = (t: string) =>
    frozen ? `if (j < frozenKeys) { return F${t}[(kvRow * frozenKeys + j) * dim + e]; } return ${own(t)};` : `return ${own(t)};`;
  return `
      fn readKey(kvRow : i32, j : i32, e : i32, dim : i32, ownKeys : i32, frozenKeys : i32) -> f32 { ${read('K')} }
      fn readValue(kvRow : i32, j : i32, e : i32, dim : i32, ownKeys : i32, frozenKeys : i32) -> f32 { ${read('V')} }`;
}

export function registerDecodeAttentionKernels(): void {
  registerProgramKernel(DECODE, ({ q, k, v, bias, fk, fv }) => {
    const [batch, heads, time, dim] = q.shape;
    const frozen = fk !== undefined;
    const program = groupProgram(
      `decode_attention${frozen ? '_frozen' : ''}`,
      ['Q', 'K', 'V', 'Bias', ...(frozen ? ['FK', 'FV'] : [])],
      [batch, time, heads, dim],
      batch * heads * time,
      `var<workgroup> scores : array<f32, ${ROW_THREADS}>;
      ${readers(frozen)}
      fn scoreOf(j : i32, qBase : i32, scale : f32, biasRow : i32, kvRow : i32, keys : i32, dim : i32, ownKeys : i32, frozenKeys : i32) -> f32 {
        var dot = 0.0;
        for (var e = 0; e < dim; e = e + 1) { dot = dot + Q[qBase + e] * scale * readKey(kvRow, j, e, dim, ownKeys, frozenKeys); }
        return dot + Bias[biasRow * keys + j];
      }`,
      `
        let heads = uniforms.qShape.y;
        let time = uniforms.qShape.z;
        let dim = uniforms.qShape.w;
        let kvHeads = uniforms.kShape.y;
        let ownKeys = uniforms.kShape.z;
        let frozenKeys = ${frozen ? 'uniforms.fKShape.z' : '0'};
        let keys = frozenKeys + ownKeys;
        // group = (b * heads + head) * time + t, the layout of q.
        let t = group % time;
        let head = (group / time) % heads;
        let b = group / (time * heads);
        let kvRow = b * kvHeads + head / (heads / kvHeads);
        let qBase = group * dim;
        let biasRow = b * time + t;
        let scale = 1.0 / sqrt(f32(dim));
        ${onlineSoftmaxLoop(
          `scoreOf(j, qBase, scale, biasRow, kvRow, keys, dim, ownKeys, frozenKeys)`,
          (key, e) => `readValue(kvRow, ${key}, ${e}, dim, ownKeys, frozenKeys)`,
        )}
        // Written as [batch, time, heads, dim]: the heads already merged for the next projection.
        let valid = group < uniforms.qShape.x * heads * time;
        let out = ((b * time + t) * heads + head) * dim;
        if (valid && tid < dim) { result[out + tid] = acc0 / total; }
        if (valid && col1 < dim) { result[out + col1] = acc1 / total; }`,
    );
    return { program, inputs: [q, k, v, bias, ...(frozen ? [fk, fv] : [])] };
  });
}

/**
 * q [batch, heads, time, dim] over [frozen, own] keys and values [batch, kvHeads, keys, dim] with
 * bias [batch, 1, time, all keys] (any causal mask is in the bias); returns
 * [batch, time, heads, dim], or null outside the kernel's shapes.
 */
export function fusedDecodeAttention(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, bias: tf.Tensor4D, frozen?: LayerCache): tf.Tensor4D | null {
  const [batch, heads, time, dim] = q.shape;
  const [, kvHeads, ownKeys] = k.shape;
  const keys = ownKeys + (frozen?.k.shape[2] ?? 0);
  if (dim > 2 * ROW_THREADS || heads % kvHeads !== 0 || bias.shape[0] !== batch || bias.shape[3] !== keys || bias.shape[2] !== time) return null;
  return runKernel(DECODE, { q, k, v, bias, ...(frozen ? { fk: frozen.k, fv: frozen.v } : {}) }) as tf.Tensor4D;
}
