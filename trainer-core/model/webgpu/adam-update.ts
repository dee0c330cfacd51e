/**
 * Adam's update of one parameter in three dispatches, each writing its tensor IN PLACE (the
 * program's output is the variable's own buffer, as the KV-cache write does): the first moment,
 * the second, then the parameter from both. tfjs's ops take about twelve dispatches a parameter
 * (scalings, adds, square, sqrt, divide, subtract), which for a small model's many small
 * tensors is most of an optimizer step's dispatches. A gradient scale (global-norm clipping) is
 * applied inside, so the clipped gradients are never formed.
 *
 * The arithmetic is the reference's (adam.ts) in the same order, float32 throughout:
 *   g' = g s,  m = b1 m + (1 - b1) g',  v = b2 v + (1 - b2) g'^2,
 *   p = p - (m / (sqrt(v) + eps) step + p lr wd)
 */
import * as tf from '@tensorflow/tfjs';
import type { WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';
import type { AdamStep } from '../fused-kernels';
import { elementwiseProgram } from './program';

interface TensorData {
  values: unknown;
  refCount: number;
}

interface WebgpuBackendLike {
  runWebGPUProgram(program: WebGPUProgram, inputs: tf.TensorInfo[], dtype: tf.DataType, uniforms: Array<{ type: string; data: number[] }>, output: tf.TensorInfo): tf.TensorInfo;
  tensorMap: { get(dataId: object): TensorData };
}

/**
 * Runs `p` with `target` as its output, in place. tfjs may hold a copy of the target's values
 * on the CPU (from an earlier read): dropped, so a later read sees what the GPU wrote.
 */
function writeInPlace(p: WebGPUProgram, inputs: tf.Tensor[], uniforms: Array<{ type: string; data: number[] }>, target: tf.Tensor): void {
  const backend = tf.backend() as unknown as WebgpuBackendLike;
  backend.runWebGPUProgram(p, inputs, 'float32', uniforms, target);
  backend.tensorMap.get(target.dataId).values = null;
}

/**
 * Gives `variable` a buffer of its own where another tensor shares it (a variable assigned from
 * another, a view kept elsewhere): an in-place write must not change them.
 */
function ownBuffer(variable: tf.Variable): void {
  const backend = tf.backend() as unknown as WebgpuBackendLike & { refCount(dataId: object): number };
  if (backend.refCount(variable.dataId) <= 1) return;
  const copy = tf.tidy(() => variable.add(tf.scalar(0)));
  variable.assign(copy);
  copy.dispose();
}

/** One Adam update of `param` and its moments `m`, `v` (same shape) by gradient `g`, in place. */
export function adamUpdate(param: tf.Variable, m: tf.Variable, v: tf.Variable, g: tf.Tensor, step: AdamStep): void {
  for (const t of [param, m, v]) ownBuffer(t);
  const size = param.size;
  const flat = (t: tf.Tensor) => t.reshape([size]);
  tf.tidy(() => {
    const grad = flat(g);
    const f32 = (data: number[]) => ({ type: 'float32', data });
    writeInPlace(
      elementwiseProgram('adam_m', ['G'], [size], 'result[index] = uniforms.beta * result[index] + (G[index] * uniforms.scale) * uniforms.rest;', 'beta : f32, rest : f32, scale : f32,'),
      [grad],
      [f32([step.beta1]), f32([1 - step.beta1]), f32([step.gradScale])],
      m,
    );
    writeInPlace(
      elementwiseProgram('adam_v', ['G'], [size], 'let g = G[index] * uniforms.scale;\n          result[index] = uniforms.beta * result[index] + (g * g) * uniforms.rest;', 'beta : f32, rest : f32, scale : f32,'),
      [grad],
      [f32([step.beta2]), f32([1 - step.beta2]), f32([step.gradScale])],
      v,
    );
    writeInPlace(
      elementwiseProgram(
        'adam_param',
        ['M', 'V'],
        [size],
        `var update = M[index] / (sqrt(V[index]) + uniforms.eps) * uniforms.stepSize;
          if (uniforms.decay != 0.0) { update = update + result[index] * uniforms.decay; }
          result[index] = result[index] - update;`,
        'eps : f32, stepSize : f32, decay : f32,',
      ),
      [flat(m), flat(v)],
      [f32([step.epsilon]), f32([step.stepSize]), f32([step.decay])],
      param,
    );
  });
}
