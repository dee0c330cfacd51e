/**
 * Attention of one new token per row over its KV cache, in one dispatch: a workgroup per
 * (row, query head) reads its grouped key/value head in place (no repeated keys), adds the
 * mask's bias and keeps a running softmax over chunks of ROW_THREADS keys, so no score matrix
 * is written. tfjs's reference: a scale, two batched matmuls, a bias add and a softmax (five
 * dispatches or more, plus reshapes that copy).
 *
 * Head dimensions up to 2 x ROW_THREADS (128) are handled: each thread owns two output columns.
 */
import * as tf from '@tensorflow/tfjs';
import { ROW_THREADS, groupProgram, registerProgramKernel, runKernel } from './program';

const DECODE = 'TurnLabDecodeAttention';

export function registerDecodeAttentionKernels(): void {
  registerProgramKernel(DECODE, ({ q, k, v, bias }) => {
    const [batch, heads] = q.shape;
    const program = groupProgram(
      'decode_attention',
      ['Q', 'K', 'V', 'Bias'],
      [...q.shape],
      batch * heads,
      `var<workgroup> scores : array<f32, ${ROW_THREADS}>;`,
      `
        let heads = uniforms.qShape.y;
        let dim = uniforms.qShape.w;
        let kvHeads = uniforms.kShape.y;
        let keys = uniforms.kShape.z;
        let b = group / heads;
        let kvHead = (group % heads) / (heads / kvHeads);
        let qBase = group * dim;
        let kvBase = (b * kvHeads + kvHead) * keys * dim;
        let scale = 1.0 / sqrt(f32(dim));
        var runningMax = -3.0e38;
        var total = 0.0;
        var acc0 = 0.0;
        var acc1 = 0.0;
        let col1 = tid + ${ROW_THREADS};
        for (var start = 0; start < keys; start = start + ${ROW_THREADS}) {
          let j = start + tid;
          var score = -3.0e38;
          if (j < keys) {
            var dot = 0.0;
            for (var e = 0; e < dim; e = e + 1) { dot = dot + Q[qBase + e] * scale * K[kvBase + j * dim + e]; }
            score = dot + Bias[b * keys + j];
          }
          scores[tid] = score;
          workgroupBarrier();
          let count = min(${ROW_THREADS}, keys - start);
          var chunkMax = runningMax;
          for (var i = 0; i < count; i = i + 1) { chunkMax = max(chunkMax, scores[i]); }
          let correction = exp(runningMax - chunkMax);
          total = total * correction;
          acc0 = acc0 * correction;
          acc1 = acc1 * correction;
          for (var i = 0; i < count; i = i + 1) {
            let p = exp(scores[i] - chunkMax);
            total = total + p;
            let vRow = kvBase + (start + i) * dim;
            if (tid < dim) { acc0 = acc0 + p * V[vRow + tid]; }
            if (col1 < dim) { acc1 = acc1 + p * V[vRow + col1]; }
          }
          runningMax = chunkMax;
          workgroupBarrier();
        }
        if (tid < dim) { result[qBase + tid] = acc0 / total; }
        if (col1 < dim) { result[qBase + col1] = acc1 / total; }`,
    );
    return { program, inputs: [q, k, v, bias] };
  });
}

/** q [batch, heads, 1, dim] over k, v [batch, kvHeads, keys, dim] with bias [batch, 1, 1, keys]; null outside the kernel's shapes. */
export function fusedDecodeAttention(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, bias: tf.Tensor4D): tf.Tensor4D | null {
  const [batch, heads, time, dim] = q.shape;
  const [, kvHeads, keys] = k.shape;
  if (time !== 1 || dim > 2 * 64 || heads % kvHeads !== 0 || bias.shape[0] !== batch || bias.shape[3] !== keys || bias.shape[2] !== 1) return null;
  return runKernel(DECODE, { q, k, v, bias }) as tf.Tensor4D;
}
