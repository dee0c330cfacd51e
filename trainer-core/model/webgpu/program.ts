/**
 * What TurnLab's WebGPU kernels share: the program shape tfjs-backend-webgpu compiles (it adds
 * the storage bindings, the uniforms with every input's shape, and `_start`, which calls
 * `main(index)`), and a way to run one on the active backend.
 *
 * Shapes reach the shaders through the uniforms tfjs fills in, never baked into the source, so
 * one pipeline serves every length of a growing KV cache and every batch size.
 */
import * as tf from '@tensorflow/tfjs';
import type { WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';

/** Threads per workgroup of the row-per-workgroup kernels (reductions over a row in shared memory). */
export const ROW_THREADS = 64;

/** A program whose `main(index)` gets one invocation per output element. */
export function elementwiseProgram(key: string, variableNames: string[], outputShape: number[], body: string, uniforms?: string): WebGPUProgram {
  const size = outputShape.reduce((a, b) => a * b, 1);
  const workgroupSize: [number, number, number] = [64, 1, 1];
  return {
    shaderKey: `turnlab_${key}`,
    variableNames,
    outputShape,
    dispatchLayout: { x: outputShape.map((_, i) => i) },
    dispatch: [Math.ceil(size / workgroupSize[0]), 1, 1],
    workgroupSize,
    size: true,
    uniforms,
    getUserCode: () => `
      fn main(index : i32) {
        if (index < uniforms.size) {
          ${body}
        }
      }`,
  };
}

/**
 * A program with one workgroup of ROW_THREADS threads per `groups` (a row, a head): `body` sees
 * `group` (which workgroup) and `tid` (which thread), and may declare workgroup memory in `decls`.
 * Past 65,535 groups tfjs folds the dispatch into two dimensions and may round it up: `body`
 * must not write for a `group` past the last, and cannot return early (its barriers must be
 * reached by every thread), so it guards its writes.
 */
export function groupProgram(key: string, variableNames: string[], outputShape: number[], groups: number, decls: string, body: string, uniforms?: string): WebGPUProgram {
  return {
    shaderKey: `turnlab_${key}`,
    variableNames,
    outputShape,
    dispatchLayout: { x: outputShape.map((_, i) => i) },
    dispatch: [groups, 1, 1],
    workgroupSize: [ROW_THREADS, 1, 1],
    uniforms,
    getUserCode: () => `
      ${decls}
      fn main(index : i32) {
        let group = i32(workgroupId.z * numWorkgroups.x * numWorkgroups.y + workgroupId.y * numWorkgroups.x + workgroupId.x);
        let tid = i32(localId.x);
        ${body}
      }`,
  };
}

/** Tree sum of `partial` (ROW_THREADS entries) into partial[0]; every thread must reach it. */
export const TREE_SUM = (name: string) => `
        workgroupBarrier();
        for (var stride = ${ROW_THREADS / 2}; stride > 0; stride = stride / 2) {
          if (tid < stride) { ${name}[tid] = ${name}[tid] + ${name}[tid + stride]; }
          workgroupBarrier();
        }`;

/**
 * A program's own uniform; `perStep` marks one that grows by that much each decoding step (a KV
 * cache's column, the keys attended), which a recorded step (step-recorder.ts) patches.
 */
export type Uniform = { type: string; data: number[]; perStep?: number };

interface WebgpuBackendLike {
  runWebGPUProgram(program: WebGPUProgram, inputs: tf.TensorInfo[], dtype: tf.DataType, uniforms?: Uniform[]): tf.TensorInfo;
}

/** What a kernel runs: its program, the inputs in the program's variable order, extra uniforms. */
export interface ProgramCall {
  program: WebGPUProgram;
  inputs: tf.TensorInfo[];
  uniforms?: Uniform[];
}

/**
 * Registers `name` as a tfjs kernel of the webgpu backend that runs one program: the engine then
 * tracks its output like any op's (tidy, memory, profiling, kernel counts).
 */
export function registerProgramKernel(name: string, build: (inputs: Record<string, tf.TensorInfo>, attrs: Record<string, number>) => ProgramCall): void {
  if (tf.getKernel(name, 'webgpu')) return;
  tf.registerKernel({
    kernelName: name,
    backendName: 'webgpu',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const call = build(inputs as Record<string, tf.TensorInfo>, (attrs ?? {}) as Record<string, number>);
      return (backend as unknown as WebgpuBackendLike).runWebGPUProgram(call.program, call.inputs, 'float32', call.uniforms);
    },
  });
}

/** Runs a registered kernel on the active backend. */
export function runKernel(name: string, inputs: Record<string, tf.Tensor>, attrs: Record<string, number> = {}): tf.Tensor {
  return tf.engine().runKernel(name, inputs as unknown as tf.NamedTensorMap, attrs) as tf.Tensor;
}

/**
 * Dispatches per submit while a decoding step records, from TURNLAB_DECODE_SUBMIT_EVERY (unset:
 * tfjs's WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE, 15). A large value makes a step one submit (about
 * 15 us of host time a dispatch less on llvmpipe, bench/decode-host-time.ts), but a GPU then
 * starts the step only once it is all recorded, where submits every 15 dispatches let it run
 * while the host records the rest: which wins on a GPU is for a GPU run to say (gpu-notes.md).
 */
const SUBMIT_EVERY = Math.max(0, Math.floor(Number(process.env.TURNLAB_DECODE_SUBMIT_EVERY ?? 0) || 0));
const SUBMIT_FLAG = 'WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE';

/** Runs `record` with SUBMIT_EVERY dispatches a submit (where set), restoring tfjs's setting after. */
export function recordStep<T>(record: () => T): T {
  if (!SUBMIT_EVERY) return record();
  const before = tf.env().getNumber(SUBMIT_FLAG);
  tf.env().set(SUBMIT_FLAG, SUBMIT_EVERY);
  try {
    return record();
  } finally {
    tf.env().set(SUBMIT_FLAG, before);
  }
}

interface QueueOwner {
  commandEncoder: unknown;
  endComputePassEncoder(): void;
  submitQueue(): void;
}

/**
 * Submits what tfjs has recorded so far (it submits every WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE
 * dispatches, or at a read): work queued ahead of a read starts now, not at the next read.
 */
export function flushQueue(): void {
  const backend = tf.backend() as unknown as QueueOwner;
  if (!backend.commandEncoder) return;
  backend.endComputePassEncoder();
  backend.submitQueue();
}
