/**
 * Self-attention of TurnLab's own transformer for training, read straight from the packed
 * q|k|v projection [batch * time, 3 * width] (as many key/value heads as query heads, positions
 * learned, so nothing rotates), the additive bias [batch, 1, time, time] holding the causal and
 * padding mask: forward in one dispatch, gradient in four, where tfjs's path (three slices,
 * three head transposes, a scale, two batched matmuls, a bias add, a softmax, a merge transpose)
 * took about 30 a layer between forward and gradient (the standard model's PPO step: 461 -> 361).
 *
 * Forward: a workgroup per (row, head, query) keeps a running softmax over chunks of keys
 * (online-softmax.ts) and writes its head of the merged output [batch * time, width].
 * Gradient (flash-attention's, recomputing the probabilities instead of storing them):
 *   stats: per query, the scores' max m, 1 / sum_j exp(s_j - m) and delta = dO . O;
 *   dq: per query, scale sum_j p_j (dO . v_j - delta) k_j;
 *   dk, dv: per key, scale sum_t p_tj (dO_t . v_j - delta_t) q_t and sum_t p_tj dO_t;
 * with s = (q scale) . k + bias and p = exp(s - m) / sum, then [dq | dk | dv] joined in one concat.
 * Head widths up to 2 x ROW_THREADS: each thread owns two columns.
 */
import * as tf from '@tensorflow/tfjs';
import { onlineSoftmaxLoop } from './online-softmax';
import { ROW_THREADS, TREE_SUM, groupProgram, registerProgramKernel, runKernel } from './program';

const FORWARD = 'TurnLabTrainingAttention';
const STATS = 'TurnLabTrainingAttentionStats';
const GRAD_Q = 'TurnLabTrainingAttentionGradQ';
const GRAD_KV = 'TurnLabTrainingAttentionGradKV';

/** Where a workgroup is: (b, head, position) from `group`, and the packed layout's strides. */
const LAYOUT = `
        let heads = uniforms.heads;
        let time = uniforms.biasShape.z;
        let width = uniforms.qkvShape.y / 3;
        let dim = width / heads;
        let stride = 3 * width;
        let pos = group % time;
        let head = (group / time) % heads;
        let b = min(group / (time * heads), uniforms.biasShape.x - 1);
        let valid = group < uniforms.biasShape.x * heads * time;
        let scale = 1.0 / sqrt(f32(dim));
        // Element e of position p's q, k or v of this head.
        let qAt = (b * time) * stride + head * dim;
        let kAt = qAt + width;
        let vAt = qAt + 2 * width;`;
/** The second column a thread owns (onlineSoftmaxLoop declares it itself). */
const COL1 = `let col1 = tid + ${ROW_THREADS};`;

/** The score of query t against key j (the bias holds the mask). */
const SCORE = `
      fn scoreOf(b : i32, t : i32, j : i32, qAt : i32, kAt : i32, stride : i32, dim : i32, time : i32, scale : f32) -> f32 {
        var dot = 0.0;
        for (var e = 0; e < dim; e = e + 1) { dot = dot + Qkv[qAt + t * stride + e] * scale * Qkv[kAt + j * stride + e]; }
        return dot + Bias[(b * time + t) * time + j];
      }`;
/** dO_t . v_j: the gradient of the output against a value. */
const GRAD_DOT = `
      fn gradDot(b : i32, t : i32, j : i32, vAt : i32, stride : i32, dim : i32, time : i32, width : i32, head : i32) -> f32 {
        var dot = 0.0;
        for (var e = 0; e < dim; e = e + 1) { dot = dot + Dy[(b * time + t) * width + head * dim + e] * Qkv[vAt + j * stride + e]; }
        return dot;
      }`;

export function registerTrainingAttentionKernels(): void {
  registerProgramKernel(FORWARD, ({ qkv, bias }, { heads }) => {
    const [rows, packed] = qkv.shape;
    const program = groupProgram(
      'training_attention',
      ['Qkv', 'Bias'],
      [rows, packed / 3],
      rows * heads,
      `var<workgroup> scores : array<f32, ${ROW_THREADS}>;
      ${SCORE}`,
      `${LAYOUT}
        let keys = time;
        ${onlineSoftmaxLoop('scoreOf(b, pos, j, qAt, kAt, stride, dim, time, scale)', (key, e) => `Qkv[vAt + (${key}) * stride + ${e}]`)}
        let out = (b * time + pos) * width + head * dim;
        if (valid && tid < dim) { result[out + tid] = acc0 / total; }
        if (valid && col1 < dim) { result[out + col1] = acc1 / total; }`,
      'heads : i32,',
    );
    return { program, inputs: [qkv, bias], uniforms: [{ type: 'int32', data: [heads] }] };
  });
  // [rows * heads, 3] in (b, head, position) order: the scores' max, 1 / sum exp(s - max), dO . O.
  // (Not a log-sum-exp: with every key masked the scores are all -1e9, where max + log(sum) rounds to max.)
  registerProgramKernel(STATS, ({ qkv, bias, attended, dy }, { heads }) => {
    const rows = qkv.shape[0];
    const program = groupProgram(
      'training_attention_stats',
      ['Qkv', 'Bias', 'Attended', 'Dy'],
      [rows * heads, 3],
      rows * heads,
      `var<workgroup> scores : array<f32, ${ROW_THREADS}>;
      var<workgroup> partial : array<f32, ${ROW_THREADS}>;
      ${SCORE}`,
      `${LAYOUT}
        let keys = time;
        ${onlineSoftmaxLoop('scoreOf(b, pos, j, qAt, kAt, stride, dim, time, scale)', () => '0.0')}
        let o = (b * time + pos) * width + head * dim;
        var d = 0.0;
        if (tid < dim) { d = Dy[o + tid] * Attended[o + tid]; }
        if (col1 < dim) { d = d + Dy[o + col1] * Attended[o + col1]; }
        partial[tid] = d;
        ${TREE_SUM('partial')}
        if (tid == 0 && valid) {
          result[group * 3] = runningMax;
          result[group * 3 + 1] = 1.0 / total;
          result[group * 3 + 2] = partial[0];
        }`,
      'heads : i32,',
    );
    return { program, inputs: [qkv, bias, attended, dy], uniforms: [{ type: 'int32', data: [heads] }] };
  });
  registerProgramKernel(GRAD_Q, ({ qkv, bias, dy, stats }, { heads }) => {
    const [rows, packed] = qkv.shape;
    const program = groupProgram(
      'training_attention_grad_q',
      ['Qkv', 'Bias', 'Dy', 'Stats'],
      [rows, packed / 3],
      rows * heads,
      `var<workgroup> chunk : array<f32, ${ROW_THREADS}>;
      ${SCORE}
      ${GRAD_DOT}`,
      `${LAYOUT}
        ${COL1}
        let mx = Stats[group * 3];
        let inverseTotal = Stats[group * 3 + 1];
        let delta = Stats[group * 3 + 2];
        var acc0 = 0.0;
        var acc1 = 0.0;
        for (var start = 0; start < time; start = start + ${ROW_THREADS}) {
          let j = start + tid;
          var ds = 0.0;
          if (j < time) {
            let p = exp(scoreOf(b, pos, j, qAt, kAt, stride, dim, time, scale) - mx) * inverseTotal;
            ds = p * (gradDot(b, pos, j, vAt, stride, dim, time, width, head) - delta);
          }
          chunk[tid] = ds;
          workgroupBarrier();
          let count = min(${ROW_THREADS}, time - start);
          for (var i = 0; i < count; i = i + 1) {
            if (tid < dim) { acc0 = acc0 + chunk[i] * Qkv[kAt + (start + i) * stride + tid]; }
            if (col1 < dim) { acc1 = acc1 + chunk[i] * Qkv[kAt + (start + i) * stride + col1]; }
          }
          workgroupBarrier();
        }
        let out = (b * time + pos) * width + head * dim;
        if (valid && tid < dim) { result[out + tid] = acc0 * scale; }
        if (valid && col1 < dim) { result[out + col1] = acc1 * scale; }`,
      'heads : i32,',
    );
    return { program, inputs: [qkv, bias, dy, stats], uniforms: [{ type: 'int32', data: [heads] }] };
  });
  // [rows, 2 * width]: dk, then dv, of each key (a workgroup per (b, head, key)).
  registerProgramKernel(GRAD_KV, ({ qkv, bias, dy, stats }, { heads }) => {
    const [rows, packed] = qkv.shape;
    const program = groupProgram(
      'training_attention_grad_kv',
      ['Qkv', 'Bias', 'Dy', 'Stats'],
      [rows, (2 * packed) / 3],
      rows * heads,
      `var<workgroup> probs : array<f32, ${ROW_THREADS}>;
      var<workgroup> chunk : array<f32, ${ROW_THREADS}>;
      ${SCORE}
      ${GRAD_DOT}`,
      `${LAYOUT}
        ${COL1}
        let kj = pos;
        let first = (b * heads + head) * time;
        var k0 = 0.0;
        var k1 = 0.0;
        var v0 = 0.0;
        var v1 = 0.0;
        for (var start = 0; start < time; start = start + ${ROW_THREADS}) {
          let t = start + tid;
          var p = 0.0;
          var ds = 0.0;
          if (t < time) {
            let at = (first + t) * 3;
            p = exp(scoreOf(b, t, kj, qAt, kAt, stride, dim, time, scale) - Stats[at]) * Stats[at + 1];
            ds = p * (gradDot(b, t, kj, vAt, stride, dim, time, width, head) - Stats[at + 2]);
          }
          probs[tid] = p;
          chunk[tid] = ds;
          workgroupBarrier();
          let count = min(${ROW_THREADS}, time - start);
          for (var i = 0; i < count; i = i + 1) {
            let dyRow = (b * time + start + i) * width + head * dim;
            if (tid < dim) {
              k0 = k0 + chunk[i] * Qkv[qAt + (start + i) * stride + tid];
              v0 = v0 + probs[i] * Dy[dyRow + tid];
            }
            if (col1 < dim) {
              k1 = k1 + chunk[i] * Qkv[qAt + (start + i) * stride + col1];
              v1 = v1 + probs[i] * Dy[dyRow + col1];
            }
          }
          workgroupBarrier();
        }
        let out = (b * time + kj) * 2 * width + head * dim;
        if (valid && tid < dim) { result[out + tid] = k0 * scale; result[out + width + tid] = v0; }
        if (valid && col1 < dim) { result[out + col1] = k1 * scale; result[out + width + col1] = v1; }`,
      'heads : i32,',
    );
    return { program, inputs: [qkv, bias, dy, stats], uniforms: [{ type: 'int32', data: [heads] }] };
  });
}

/**
 * Attention of the packed projection qkv [batch * time, 3 * width] with `heads` heads under
 * bias [batch, 1, time, time], heads merged: [batch * time, width], with its gradient for qkv;
 * null outside the kernels' shapes (head width past 2 x ROW_THREADS, a bias of other keys).
 */
export function trainingAttention(qkv: tf.Tensor2D, bias: tf.Tensor4D, heads: number): tf.Tensor2D | null {
  const [batch, , time, keys] = bias.shape;
  const width = qkv.shape[1] / 3;
  if (!Number.isInteger(width / heads) || width / heads > 2 * ROW_THREADS || keys !== time || batch * time !== qkv.shape[0]) return null;
  const op = tf.customGrad((...args) => {
    const [packed, save] = args as [tf.Tensor2D, tf.GradSaveFunc];
    const out = runKernel(FORWARD, { qkv: packed, bias }, { heads });
    // The bias is saved, not captured: the forward scope disposes what it does not save.
    save([packed, bias, out]);
    return {
      value: out,
      gradFunc: (dy: tf.Tensor, [savedQkv, savedBias, savedOut]: tf.Tensor[]) => {
        const stats = runKernel(STATS, { qkv: savedQkv, bias: savedBias, attended: savedOut, dy }, { heads });
        const dq = runKernel(GRAD_Q, { qkv: savedQkv, bias: savedBias, dy, stats }, { heads });
        const dkv = runKernel(GRAD_KV, { qkv: savedQkv, bias: savedBias, dy, stats }, { heads });
        const grad = tf.concat([dq, dkv], 1);
        tf.dispose([stats, dq, dkv]);
        return grad;
      },
    };
  });
  return op(qkv) as tf.Tensor2D;
}
