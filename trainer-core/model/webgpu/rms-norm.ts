/**
 * RMSNorm in one dispatch forward (a workgroup per row sums the squares in shared memory, then
 * writes the row) and three backward: per-row statistics (the inverse RMS r and sum(w dy x)),
 * then dx and dweight elementwise. tfjs's reference takes six dispatches forward.
 *
 *   y = x r w,  r = (mean(x^2) + eps)^-1/2
 *   dx_j = r w_j dy_j - x_j r^3 sum_i(w_i dy_i x_i) / n,  dw_j = sum over rows of dy_j x_j r
 */
import * as tf from '@tensorflow/tfjs';
import { ROW_THREADS, TREE_SUM, elementwiseProgram, groupProgram, registerProgramKernel, runKernel } from './program';

const FORWARD = 'TurnLabRmsNorm';
const STATS = 'TurnLabRmsNormStats';
const GRAD_X = 'TurnLabRmsNormGradX';
const GRAD_W = 'TurnLabRmsNormGradW';

export function registerRmsNormKernels(): void {
  registerProgramKernel(FORWARD, ({ x, w }, { eps }) => {
    const [rows, n] = x.shape;
    const program = groupProgram(
      'rms_norm',
      ['X', 'W'],
      [rows, n],
      rows,
      `var<workgroup> partial : array<f32, ${ROW_THREADS}>;`,
      `
        let n = uniforms.xShape.y;
        let base = group * n;
        var s = 0.0;
        for (var i = tid; i < n; i = i + ${ROW_THREADS}) { let v = X[base + i]; s = s + v * v; }
        partial[tid] = s;
        ${TREE_SUM('partial')}
        let r = 1.0 / sqrt(partial[0] / f32(n) + uniforms.eps);
        if (group < uniforms.xShape.x) {
          for (var i = tid; i < n; i = i + ${ROW_THREADS}) { result[base + i] = X[base + i] * r * W[i]; }
        }`,
      'eps : f32,',
    );
    return { program, inputs: [x, w], uniforms: [{ type: 'float32', data: [eps] }] };
  });
  registerProgramKernel(STATS, ({ x, w, dy }, { eps }) => {
    const [rows] = x.shape;
    const program = groupProgram(
      'rms_norm_stats',
      ['X', 'W', 'Dy'],
      [rows, 2],
      rows,
      `var<workgroup> squares : array<f32, ${ROW_THREADS}>;
       var<workgroup> dots : array<f32, ${ROW_THREADS}>;`,
      `
        let n = uniforms.xShape.y;
        let base = group * n;
        var s = 0.0;
        var d = 0.0;
        for (var i = tid; i < n; i = i + ${ROW_THREADS}) {
          let v = X[base + i];
          s = s + v * v;
          d = d + W[i] * Dy[base + i] * v;
        }
        squares[tid] = s;
        dots[tid] = d;
        ${TREE_SUM('squares')}
        ${TREE_SUM('dots')}
        if (tid == 0 && group < uniforms.xShape.x) {
          result[group * 2] = 1.0 / sqrt(squares[0] / f32(n) + uniforms.eps);
          result[group * 2 + 1] = dots[0];
        }`,
      'eps : f32,',
    );
    return { program, inputs: [x, w, dy], uniforms: [{ type: 'float32', data: [eps] }] };
  });
  registerProgramKernel(GRAD_X, ({ x, w, dy, stats }) => {
    const program = elementwiseProgram(
      'rms_norm_grad_x',
      ['X', 'W', 'Dy', 'Stats'],
      [...x.shape],
      `
          let n = uniforms.xShape.y;
          let row = index / n;
          let j = index - row * n;
          let r = Stats[row * 2];
          setOutputAtIndex(index, r * W[j] * Dy[index] - X[index] * r * r * r * Stats[row * 2 + 1] / f32(n));`,
    );
    return { program, inputs: [x, w, dy, stats] };
  });
  registerProgramKernel(GRAD_W, ({ x, dy, stats }) => {
    const program = elementwiseProgram(
      'rms_norm_grad_w',
      ['X', 'Dy', 'Stats'],
      [x.shape[1]],
      `
          let rows = uniforms.xShape.x;
          let n = uniforms.xShape.y;
          var s = 0.0;
          for (var row = 0; row < rows; row = row + 1) { s = s + Dy[row * n + index] * X[row * n + index] * Stats[row * 2]; }
          setOutputAtIndex(index, s);`,
    );
    return { program, inputs: [x, dy, stats] };
  });
}

/** RMSNorm over the last axis of x (any rank), by the kernels above. */
export function fusedRmsNorm(x: tf.Tensor, weight: tf.Tensor, eps: number): tf.Tensor {
  const n = x.shape[x.rank - 1];
  const rows = x.size / n;
  const op = tf.customGrad((...args) => {
    const [xs, ws, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    const flat = xs.reshape([rows, n]);
    save([flat, ws]);
    return {
      value: runKernel(FORWARD, { x: flat, w: ws }, { eps }).reshape(xs.shape),
      gradFunc: (dy: tf.Tensor, [savedX, savedW]: tf.Tensor[]) => {
        const dyFlat = dy.reshape([rows, n]);
        const stats = runKernel(STATS, { x: savedX, w: savedW, dy: dyFlat }, { eps });
        const dx = runKernel(GRAD_X, { x: savedX, w: savedW, dy: dyFlat, stats }).reshape(xs.shape);
        const dw = runKernel(GRAD_W, { x: savedX, dy: dyFlat, stats }).reshape(ws.shape);
        stats.dispose();
        return [dx, dw];
      },
    };
  });
  return op(x, weight);
}
