/**
 * GPT-2's LayerNorm in one dispatch: a workgroup per row sums the row, then the squares of the
 * centred row, in shared memory, and writes (x - mean) / sqrt(var + eps) * gain + bias. tfjs's
 * reference (blocks/norms.ts) takes nine dispatches forward and about twenty backward; the
 * gradient here takes three: per-row statistics, dx elementwise, and dgain with dbias.
 *
 *   xh = (x - mean) r,  r = (var + eps)^-1/2,  y = xh gain + bias
 *   dx = r (dy gain - mean(dy gain) - xh mean(dy gain xh)),  dgain = sum over rows dy xh,  dbias = sum dy
 */
import * as tf from '@tensorflow/tfjs';
import { ROW_THREADS, TREE_SUM, elementwiseProgram, groupProgram, registerProgramKernel, runKernel } from './program';

const LAYER_NORM = 'TurnLabLayerNorm';
/** A workgroup's row of X (row `group`, n wide) and its mean, summed in `partial`; every thread must reach it. */
const ROW_MEAN = `
        let n = uniforms.xShape.y;
        let row = min(group, uniforms.xShape.x - 1);
        let base = row * n;
        var s = 0.0;
        for (var i = tid; i < n; i = i + ${ROW_THREADS}) { s = s + X[base + i]; }
        partial[tid] = s;
        ${TREE_SUM('partial')}
        let mean = partial[0] / f32(n);
        workgroupBarrier();`;
const STATS = 'TurnLabLayerNormStats';
const GRAD_X = 'TurnLabLayerNormGradX';
const GRAD_GAIN_BIAS = 'TurnLabLayerNormGradGainBias';

export function registerLayerNormKernels(): void {
  registerProgramKernel(LAYER_NORM, ({ x, gain, bias }, { eps }) => {
    const [rows, n] = x.shape;
    const program = groupProgram(
      'layer_norm',
      ['X', 'Gain', 'Bias'],
      [rows, n],
      rows,
      `var<workgroup> partial : array<f32, ${ROW_THREADS}>;`,
      `
        ${ROW_MEAN}
        var q = 0.0;
        for (var i = tid; i < n; i = i + ${ROW_THREADS}) { let c = X[base + i] - mean; q = q + c * c; }
        partial[tid] = q;
        ${TREE_SUM('partial')}
        let inverseStd = 1.0 / sqrt(partial[0] / f32(n) + uniforms.eps);
        if (group < uniforms.xShape.x) {
          for (var i = tid; i < n; i = i + ${ROW_THREADS}) { result[base + i] = (X[base + i] - mean) * inverseStd * Gain[i] + Bias[i]; }
        }`,
      'eps : f32,',
    );
    return { program, inputs: [x, gain, bias], uniforms: [{ type: 'float32', data: [eps] }] };
  });
  // Per row: mean, r, mean(dy gain), mean(dy gain xh).
  registerProgramKernel(STATS, ({ x, gain, dy }, { eps }) => {
    const [rows] = x.shape;
    const program = groupProgram(
      'layer_norm_stats',
      ['X', 'Gain', 'Dy'],
      [rows, 4],
      rows,
      `var<workgroup> partial : array<f32, ${ROW_THREADS}>;
       var<workgroup> dots : array<f32, ${ROW_THREADS}>;
       var<workgroup> crossed : array<f32, ${ROW_THREADS}>;`,
      `
        ${ROW_MEAN}
        var q = 0.0;
        var d = 0.0;
        var c = 0.0;
        for (var i = tid; i < n; i = i + ${ROW_THREADS}) {
          let centred = X[base + i] - mean;
          let dg = Dy[base + i] * Gain[i];
          q = q + centred * centred;
          d = d + dg;
          c = c + dg * centred;
        }
        partial[tid] = q;
        dots[tid] = d;
        crossed[tid] = c;
        ${TREE_SUM('partial')}
        ${TREE_SUM('dots')}
        ${TREE_SUM('crossed')}
        let r = 1.0 / sqrt(partial[0] / f32(n) + uniforms.eps);
        if (tid == 0 && group < uniforms.xShape.x) {
          result[row * 4] = mean;
          result[row * 4 + 1] = r;
          result[row * 4 + 2] = dots[0] / f32(n);
          result[row * 4 + 3] = crossed[0] * r / f32(n);
        }`,
      'eps : f32,',
    );
    return { program, inputs: [x, gain, dy], uniforms: [{ type: 'float32', data: [eps] }] };
  });
  registerProgramKernel(GRAD_X, ({ x, gain, dy, stats }) => {
    const program = elementwiseProgram(
      'layer_norm_grad_x',
      ['X', 'Gain', 'Dy', 'Stats'],
      [...x.shape],
      `
          let n = uniforms.xShape.y;
          let row = index / n;
          let j = index - row * n;
          let r = Stats[row * 4 + 1];
          let xh = (X[index] - Stats[row * 4]) * r;
          setOutputAtIndex(index, r * (Dy[index] * Gain[j] - Stats[row * 4 + 2] - xh * Stats[row * 4 + 3]));`,
    );
    return { program, inputs: [x, gain, dy, stats] };
  });
  // [2, n]: dgain, then dbias, each a column's sum over the rows.
  registerProgramKernel(GRAD_GAIN_BIAS, ({ x, dy, stats }) => {
    const program = elementwiseProgram(
      'layer_norm_grad_gain_bias',
      ['X', 'Dy', 'Stats'],
      [2, x.shape[1]],
      `
          let rows = uniforms.xShape.x;
          let n = uniforms.xShape.y;
          let j = index % n;
          var s = 0.0;
          if (index < n) {
            for (var row = 0; row < rows; row = row + 1) { s = s + Dy[row * n + j] * (X[row * n + j] - Stats[row * 4]) * Stats[row * 4 + 1]; }
          } else {
            for (var row = 0; row < rows; row = row + 1) { s = s + Dy[row * n + j]; }
          }
          setOutputAtIndex(index, s);`,
    );
    return { program, inputs: [x, dy, stats] };
  });
}

/** LayerNorm over the last axis of x [rows, n] with its gradient (training), by the kernels above. */
export function fusedLayerNormWithGrad(x: tf.Tensor2D, gain: tf.Tensor, bias: tf.Tensor, eps: number): tf.Tensor2D {
  const n = x.shape[1];
  const op = tf.customGrad((...args) => {
    const [xs, gs, bs, save] = args as [tf.Tensor2D, tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    save([xs, gs]);
    return {
      value: runKernel(LAYER_NORM, { x: xs, gain: gs, bias: bs }, { eps }),
      gradFunc: (dy: tf.Tensor, [savedX, savedGain]: tf.Tensor[]) => {
        const stats = runKernel(STATS, { x: savedX, gain: savedGain, dy }, { eps });
        const dx = runKernel(GRAD_X, { x: savedX, gain: savedGain, dy, stats });
        const both = runKernel(GRAD_GAIN_BIAS, { x: savedX, dy, stats });
        const [dGain, dBias] = tf.split(both, 2, 0).map((t) => t.reshape([n]));
        tf.dispose([stats, both]);
        return [dx, dGain, dBias];
      },
    };
  });
  return op(x, gain, bias) as tf.Tensor2D;
}

export function fusedLayerNorm(x: tf.Tensor2D, gain: tf.Tensor, bias: tf.Tensor, eps: number): tf.Tensor2D {
  return runKernel(LAYER_NORM, { x, gain, bias }, { eps }) as tf.Tensor2D;
}
