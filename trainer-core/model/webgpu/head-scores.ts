/**
 * The scoring statistics of a chunk of LM-head logits in one dispatch each way (tfjs's
 * reference in chunked-head.ts takes about 18 forward and 12 backward):
 *
 * - statistics: a workgroup per row reads the raw logits z [rows, vocab] three times (max; the
 *   sum of exponentials; the entropy) and writes [rows, 3]: the log-sum-exp of z / T, the
 *   target's logprob and the entropy -sum p log p (over log-probabilities, as the reference does,
 *   so that no two large numbers cancel);
 * - gradient: elementwise, d/dz of a * logprob + b * entropy from the same logits and those
 *   statistics:  (onehot(y) a - p (a + b (log p + H))) / T.
 */
import type * as tf from '@tensorflow/tfjs';
import { ROW_THREADS, TREE_SUM, elementwiseProgram, groupProgram, registerProgramKernel, runKernel } from './program';

const STATISTICS = 'TurnLabHeadStatistics';
const GRADIENT = 'TurnLabHeadGradient';

export function registerHeadScoreKernels(): void {
  registerProgramKernel(STATISTICS, ({ z, ids }, { temperature }) => {
    const rows = z.shape[0];
    const program = groupProgram(
      'head_statistics',
      ['Z', 'Ids'],
      [rows, 3],
      rows,
      `var<workgroup> partial : array<f32, ${ROW_THREADS}>;`,
      `
        let vocab = uniforms.zShape.y;
        let row = min(group, uniforms.zShape.x - 1);
        let base = row * vocab;
        let t = uniforms.temperature;
        var m = -3.0e38;
        for (var i = tid; i < vocab; i = i + ${ROW_THREADS}) { m = max(m, Z[base + i] / t); }
        partial[tid] = m;
        workgroupBarrier();
        for (var stride = ${ROW_THREADS / 2}; stride > 0; stride = stride / 2) {
          if (tid < stride) { partial[tid] = max(partial[tid], partial[tid + stride]); }
          workgroupBarrier();
        }
        let mx = partial[0];
        workgroupBarrier();
        var s = 0.0;
        for (var i = tid; i < vocab; i = i + ${ROW_THREADS}) { s = s + exp(Z[base + i] / t - mx); }
        partial[tid] = s;
        ${TREE_SUM('partial')}
        let lse = log(partial[0]) + mx;
        workgroupBarrier();
        var h = 0.0;
        for (var i = tid; i < vocab; i = i + ${ROW_THREADS}) { let logp = Z[base + i] / t - lse; h = h + exp(logp) * logp; }
        partial[tid] = h;
        ${TREE_SUM('partial')}
        if (tid == 0 && group < uniforms.zShape.x) {
          result[group * 3] = lse;
          result[group * 3 + 1] = Z[base + Ids[row]] / t - lse;
          result[group * 3 + 2] = -partial[0];
        }`,
      'temperature : f32,',
    );
    return { program, inputs: [z, ids], uniforms: [{ type: 'float32', data: [temperature] }] };
  });
  registerProgramKernel(GRADIENT, ({ z, stats, ids, dy }, { temperature }) => ({
    program: elementwiseProgram(
      'head_gradient',
      ['Z', 'Stats', 'Ids', 'Dy'],
      [...z.shape],
      `
          let vocab = uniforms.zShape.y;
          let row = index / vocab;
          let col = index - row * vocab;
          let t = uniforms.temperature;
          let logp = Z[index] / t - Stats[row * 3];
          let a = Dy[row * 2];
          let b = Dy[row * 2 + 1];
          let hit = select(0.0, a, Ids[row] == col);
          setOutputAtIndex(index, (hit - exp(logp) * (a + b * (logp + Stats[row * 3 + 2]))) / t);`,
      'temperature : f32,',
    ),
    inputs: [z, stats, ids, dy],
    uniforms: [{ type: 'float32', data: [temperature] }],
  }));
}

/** [rows, 3]: log-sum-exp of z / T, the target's logprob, the entropy; z [rows, vocab] raw logits, ids [rows] int32. */
export function headStatistics(z: tf.Tensor2D, ids: tf.Tensor1D, temperature: number): tf.Tensor2D {
  return runKernel(STATISTICS, { z, ids }, { temperature }) as tf.Tensor2D;
}

/** d/dz of dy[:, 0] * logprob + dy[:, 1] * entropy: [rows, vocab]. */
export function headGradient(z: tf.Tensor2D, stats: tf.Tensor2D, ids: tf.Tensor1D, dy: tf.Tensor2D, temperature: number): tf.Tensor2D {
  return runKernel(GRADIENT, { z, stats, ids, dy }, { temperature }) as tf.Tensor2D;
}

/**
 * Logit elements per chunk on this device: as many as a shader may bind (twice over: the
 * logits and their gradient), at most 2^26 (256 MiB). Larger chunks mean fewer, larger matmuls,
 * which is what keeps a GPU busy; on llvmpipe the binding limit is 128 MiB.
 */
export function deviceChunkElements(backend: unknown): number {
  const limit = (backend as { device?: { limits?: { maxStorageBufferBindingSize?: number } } }).device?.limits?.maxStorageBufferBindingSize ?? 1 << 27;
  return Math.min(1 << 26, Math.floor(limit / 8));
}
