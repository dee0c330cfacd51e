/**
 * Adam's update on the GPU in place, for a model of many small tensors: every parameter's two
 * moments live in ONE flat buffer [m of every parameter | v of every parameter], updated by one
 * dispatch per GROUP gradients, then each parameter in one dispatch that writes its own buffer
 * (the program's output is the variable's buffer, as the KV-cache write does). tfjs's ops take
 * about twelve dispatches a parameter (scalings, adds, square, sqrt, divide, subtract): for the
 * standard 0.9M model's 54 tensors 650 of a training step's dispatches, here 63. A gradient
 * scale (global-norm clipping) is applied inside, so the clipped gradients are never formed.
 *
 * The arithmetic is the reference's (adam.ts) in the same order, float32 throughout:
 *   g' = g s,  m = b1 m + (1 - b1) g',  v = b2 v + (1 - b2) g'^2,
 *   p = p - (m / (sqrt(v) + eps) step + p lr wd)
 */
import * as tf from '@tensorflow/tfjs';
import type { WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';
import type { AdamStep } from '../fused-kernels';
import { elementwiseProgram } from './program';

/** Gradients per moments dispatch: with the output, within WebGPU's default 8 storage buffers. */
const GROUP = 6;

interface WebgpuBackendLike {
  runWebGPUProgram(program: WebGPUProgram, inputs: tf.TensorInfo[], dtype: tf.DataType, uniforms: Array<{ type: string; data: number[] }>, output: tf.TensorInfo): tf.TensorInfo;
  tensorMap: { get(dataId: object): { values: unknown } };
  refCount(dataId: object): number;
}

type Uniform = { type: string; data: number[] };
const f32 = (value: number): Uniform => ({ type: 'float32', data: [value] });
const i32 = (value: number): Uniform => ({ type: 'int32', data: [value] });

/**
 * Runs `p` with `target` as its output, in place. tfjs may hold a copy of the target's values
 * on the CPU (from an earlier read): dropped, so a later read sees what the GPU wrote.
 */
function writeInPlace(p: WebGPUProgram, inputs: tf.Tensor[], uniforms: Uniform[], target: tf.Tensor): void {
  const backend = tf.backend() as unknown as WebgpuBackendLike;
  backend.runWebGPUProgram(p, inputs, 'float32', uniforms, target);
  backend.tensorMap.get(target.dataId).values = null;
}

/**
 * Gives `variable` a buffer of its own where another tensor shares it (a variable assigned from
 * another, a view kept elsewhere): an in-place write must not change them.
 */
function ownBuffer(variable: tf.Variable): void {
  if ((tf.backend() as unknown as WebgpuBackendLike).refCount(variable.dataId) <= 1) return;
  const copy = tf.tidy(() => variable.add(tf.scalar(0)));
  variable.assign(copy);
  copy.dispose();
}

/**
 * Zeroed moments of parameters of these sizes: [m of each, in order | v of each]; null where one
 * buffer of them would pass what the device binds (a large model trained whole: Adam then keeps
 * tfjs's ops).
 */
export function allocateAdamMoments(sizes: number[]): tf.Variable | null {
  const total = sizes.reduce((a, b) => a + b, 0);
  const limits = (tf.backend() as unknown as { device?: { limits?: { maxStorageBufferBindingSize?: number } } }).device?.limits;
  if (8 * total > (limits?.maxStorageBufferBindingSize ?? 128 * 2 ** 20)) return null;
  return tf.tidy(() => tf.variable(tf.zeros([2 * total]), false));
}

/**
 * One Adam step of `params` (each with its gradient, or null: left as it is) whose moments are
 * `moments` (allocateAdamMoments of their sizes, in the same order), in place.
 */
export function adamStep(params: tf.Variable[], grads: Array<tf.Tensor | null>, moments: tf.Variable, step: AdamStep): void {
  ownBuffer(moments);
  const offsets: number[] = [];
  let total = 0;
  for (const p of params) {
    offsets.push(total);
    total += p.size;
  }
  const updated = params.map((p, i) => ({ p, g: grads[i], offset: offsets[i] })).filter((u): u is { p: tf.Variable; g: tf.Tensor; offset: number } => u.g !== null);
  tf.tidy(() => {
    for (let start = 0; start < updated.length; start += GROUP) {
      const group = updated.slice(start, start + GROUP);
      const names = group.map((_, i) => `G${i}`);
      // Thread `index` of the group: gradient j where ends[j - 1] <= index < ends[j].
      const ends: number[] = [];
      group.reduce((end, u) => (ends.push(end + u.g.size), end + u.g.size), 0);
      const body = `
          var j = 0;
          var first = 0;
          ${ends.slice(0, -1).map((_, j) => `if (index >= uniforms.end${j}) { j = ${j + 1}; first = uniforms.end${j}; }`).join('\n          ')}
          var g = 0.0;
          var at = 0;
          ${names.map((n, j) => `if (j == ${j}) { g = ${n}[index - first]; at = uniforms.offset${j}; }`).join('\n          ')}
          g = g * uniforms.scale;
          let k = at + index - first;
          result[k] = uniforms.beta1 * result[k] + g * uniforms.rest1;
          let kv = uniforms.total + k;
          result[kv] = uniforms.beta2 * result[kv] + (g * g) * uniforms.rest2;`;
      const declared = [...names.map((_, j) => `offset${j} : i32, end${j} : i32,`), 'total : i32, scale : f32, beta1 : f32, rest1 : f32, beta2 : f32, rest2 : f32,'].join(' ');
      const program = elementwiseProgram(`adam_moments_${group.length}`, names, [ends[ends.length - 1]], body, declared);
      const uniforms = [...group.flatMap((u, j) => [i32(u.offset), i32(ends[j])]), i32(total), f32(step.gradScale), f32(step.beta1), f32(1 - step.beta1), f32(step.beta2), f32(1 - step.beta2)];
      writeInPlace(program, group.map((u) => u.g.reshape([u.g.size])), uniforms, moments);
    }
    for (const { p, offset } of updated) {
      ownBuffer(p);
      const program = elementwiseProgram(
        'adam_param',
        ['Moments'],
        [p.size],
        `let m = Moments[uniforms.offset + index];
          let v = Moments[uniforms.total + uniforms.offset + index];
          var update = m / (sqrt(v) + uniforms.eps) * uniforms.stepSize;
          if (uniforms.decay != 0.0) { update = update + result[index] * uniforms.decay; }
          result[index] = result[index] - update;`,
        'offset : i32, total : i32, eps : f32, stepSize : f32, decay : f32,',
      );
      writeInPlace(program, [moments], [i32(offset), i32(total), f32(step.epsilon), f32(step.stepSize), f32(step.decay)], p);
    }
  });
}
