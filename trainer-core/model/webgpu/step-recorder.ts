/**
 * A decoding step recorded once per rollout and replayed by TurnLab itself (bench/gpu-notes.md,
 * "Host time of a decoding step"): through tfjs a dispatch costs 150-350 us of host time
 * (runWebGPUProgram's shader key, uniform list and buffer, bind group, engine bookkeeping),
 * which on a GPU leaves it idle most of a step of few rows. Nothing a decoding step binds moves
 * during a rollout but the fed ids, the positions and the count of tokens fed, so:
 *
 * - the rollout's first step runs through tfjs as always, on the session's own ids and positions
 *   tensors (copies of the caller's), while each recordAndSubmit is captured: its pipeline, its
 *   dispatch size, the buffers it binds and the uniform bytes tfjs wrote; every tensor it binds
 *   is kept (a reference on the backend) until the session ends, so the step's intermediates
 *   are the session's for the rollout and no pool hands their buffers to anyone else;
 * - the uniform words that move with the step (the cache column written, the keys attended)
 *   are the ones the kernels mark `perStep` (program.ts Uniform): found in tfjs's own layout by
 *   writing each once more with the value changed; all uniforms live in one buffer, each
 *   dispatch's block at its own aligned offset, bound once;
 * - every later step: the new ids and positions copied into the session's tensors, the moving
 *   words patched (one writeBuffer), and one compute pass of setPipeline / setBindGroup /
 *   dispatchWorkgroups per dispatch on tfjs's command encoder, so what tfjs records after it
 *   follows it in order. The logits are the captured step's logits tensor, overwritten by each
 *   step: valid until the next step.
 * - the sampling of those logits is recorded the same way (its draws the copied input, the
 *   logits' buffer bound as captured), so a step after the first two is two compute passes and
 *   no tfjs dispatch; its [batch, 2] ids and logprobs likewise valid until the next sampling.
 *
 * Anything the capture cannot vouch for (a tensor made during the step other than by a captured
 * dispatch, pipelines still compiling) leaves the rollout on tfjs's path; so do profiled steps
 * (tf.profile and tf.time list tfjs's kernels only) and ids of another shape than the first step's.
 * TURNLAB_DECODE_RECORDED=0 (or setRecordedDecoding(false)) keeps every step on tfjs's path, the
 * reference the recorded one is tested against (tests/backend/webgpu-recorded-decoding.test.ts).
 */
import * as tf from '@tensorflow/tfjs';
import { countRecordedDispatches } from '../gpu-counters';
import type { RecordedDecodingStep } from '../fused-kernels';
import type { Uniform } from './program';

let recordedDecoding = process.env.TURNLAB_DECODE_RECORDED !== '0';

/** Whether decoding sessions record their first step and replay it (TURNLAB_DECODE_RECORDED, default on). */
export function setRecordedDecoding(on: boolean): void {
  recordedDecoding = on;
}

export function recordedDecodingOn(): boolean {
  return recordedDecoding;
}

/** GPU buffers the recorded steps hold now (their uniform blocks): 0 once every session is disposed. */
let liveBuffers = 0;
export function recordedStepBuffers(): number {
  return liveBuffers;
}

// Dawn's objects, as far as this module touches them (the project builds without WebGPU's types).
interface GpuBuffer {
  destroy(): void;
}
interface GpuPipeline {
  getBindGroupLayout(index: number): unknown;
}
interface GpuPass {
  setPipeline(pipeline: GpuPipeline): void;
  setBindGroup(index: number, group: unknown): void;
  dispatchWorkgroups(x: number, y?: number, z?: number): void;
  end(): void;
}
interface GpuEncoder {
  beginComputePass(): GpuPass;
  copyBufferToBuffer(source: GpuBuffer, sourceOffset: number, target: GpuBuffer, targetOffset: number, size: number): void;
}
interface GpuQueue {
  writeBuffer(buffer: GpuBuffer, offset: number, data: ArrayBuffer | ArrayBufferView, dataOffset?: number, size?: number): void;
}
interface GpuDevice {
  limits: { minUniformBufferOffsetAlignment?: number };
  createBuffer(descriptor: { size: number; usage: number }): GpuBuffer;
  createBindGroup(descriptor: { layout: unknown; entries: Array<{ binding: number; resource: { buffer: GpuBuffer; offset?: number; size?: number } }> }): unknown;
}
interface TensorData {
  resource: unknown;
  values: ArrayLike<number> | null;
  dtype: string;
}
interface Program {
  pipeline: unknown;
  dispatch: number[];
}
/** tfjs-backend-webgpu's WebGPUBackend (4.22), the parts the recording reads and drives. */
interface Backend {
  device: GpuDevice;
  queue: GpuQueue;
  tensorMap: { get(dataId: object): TensorData | undefined };
  commandEncoder: GpuEncoder | null;
  commandQueueOwnedIds: WeakSet<object>;
  activeTimers: unknown;
  pipelineCache: object;
  recordAndSubmit(program: Program, output: tf.TensorInfo, inputs: tf.TensorInfo[], uniforms?: Uniform[]): void;
  makeUniforms(list: Uniform[]): unknown;
  makeTensorInfo(shape: number[], dtype: tf.DataType, values?: unknown): tf.TensorInfo;
  write(values: unknown, shape: number[], dtype: tf.DataType): object;
  uploadToGPU(dataId: object): void;
  incRef(dataId: object): void;
  disposeData(dataId: object, force?: boolean): boolean;
  ensureCommandEncoderReady(): void;
  endComputePassEncoder(): void;
  submitQueue(): void;
}
interface Engine {
  makeTensorFromTensorInfo(info: tf.TensorInfo, backend?: unknown): tf.Tensor;
  removeDataId(dataId: object, backend: unknown): void;
}

const UNIFORM = 0x40;
const COPY_DST = 0x08;

/** One captured dispatch: what it binds and the uniform bytes tfjs wrote for it. */
interface Captured {
  pipeline: GpuPipeline;
  dispatch: number[];
  output: object;
  inputs: object[];
  bytes: Uint8Array | null;
  /** Uniform words (int32, from the block's start) that move by `perStep` a step. */
  moving: Array<{ word: number; base: number; perStep: number }>;
}


/**
 * Whether tfjs is timing kernels (tf.profile, tf.time): a replayed dispatch is no tfjs kernel,
 * so it would be missing from their lists; such calls go through tfjs.
 */
function timing(backend: Backend): boolean {
  return backend.activeTimers != null || (tf.engine() as unknown as { state: { profiling: boolean } }).state.profiling;
}

function isWebgpu(backend: object): backend is Backend {
  return 'recordAndSubmit' in backend && 'pipelineCache' in backend && 'makeUniforms' in backend;
}

/**
 * Runs `run(inputs)` (a decoding step: ids and positions; a sampling: the draws) through tfjs, on
 * the recording's own copies of `inputs`, and returns its output with the call recorded for
 * replay (null where recording is off or the call cannot be replayed).
 */
export function captureCall(run: (inputs: tf.Tensor[]) => tf.Tensor, inputs: tf.Tensor[]): { output: tf.Tensor; recorded: RecordedDecodingStep | null } {
  const backend = tf.backend();
  if (!recordedDecoding || !isWebgpu(backend) || timing(backend)) return { output: run(inputs), recorded: null };
  const own = inputs.map((t) => tf.keep(tf.tensor(t.dtype === 'int32' ? new Int32Array(t.size) : new Float32Array(t.size), t.shape, t.dtype)));
  for (const [i, t] of inputs.entries()) {
    backend.uploadToGPU(own[i].dataId);
    // On the encoder, after the upload of own's zeros (which may be a copy on it too).
    copyInto(backend, own[i], t, true);
  }
  const dispatches: Captured[] = [];
  const made = new Set<object>();
  const outputs = new Set<object>();
  let unsafe = '';
  const saved = { recordAndSubmit: backend.recordAndSubmit, makeUniforms: backend.makeUniforms, makeTensorInfo: backend.makeTensorInfo, write: backend.write };
  // Hooks of others (gpu-counters.ts, the host-time bench) are own properties: put back as found.
  const ownKeys = Object.keys(saved).filter((key) => Object.prototype.hasOwnProperty.call(backend, key));
  backend.recordAndSubmit = function (this: Backend, program, output, inputs, uniforms) {
    for (const input of inputs) if (made.has(input.dataId) && !outputs.has(input.dataId)) unsafe = 'a tensor made during the step by something other than a dispatch';
    outputs.add(output.dataId);
    if (!program.pipeline || program.pipeline instanceof Promise) unsafe = 'a pipeline still compiling';
    dispatches.push({ pipeline: program.pipeline as GpuPipeline, dispatch: [...program.dispatch], output: output.dataId, inputs: inputs.map((t) => t.dataId), bytes: null, moving: [] });
    return saved.recordAndSubmit.call(this, program, output, inputs, uniforms);
  };
  backend.makeUniforms = function (this: Backend, list: Uniform[]) {
    const current = dispatches[dispatches.length - 1];
    const queue = this.queue;
    let bytes: Uint8Array | null = null;
    /** tfjs's bytes for `list`, written to the GPU too when `write`. */
    const layout = (write: boolean) => {
      this.queue = {
        writeBuffer: (buffer, offset, data, dataOffset = 0, size) => {
          const view = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
          bytes = view.slice(dataOffset, size === undefined ? undefined : dataOffset + size);
          if (write) queue.writeBuffer(buffer, offset, data, dataOffset, size);
        },
      };
      try {
        return saved.makeUniforms.call(this, list);
      } finally {
        this.queue = queue;
      }
    };
    const result = layout(true);
    const written = bytes as Uint8Array | null;
    if (current && written) {
      current.bytes = written;
      for (const entry of list) {
        if (!entry.perStep) continue;
        if (entry.type !== 'int32' || entry.data.length !== 1) {
          unsafe = 'a moving uniform that is not one int32';
          continue;
        }
        const value = entry.data[0];
        entry.data = [value + 1];
        layout(false);
        entry.data = [value];
        const probed = bytes as Uint8Array | null;
        const word = probed ? firstDifferentWord(written, probed) : -1;
        if (word < 0) unsafe = 'a moving uniform not found in the uniform block';
        else current.moving.push({ word, base: value, perStep: entry.perStep });
      }
    }
    return result;
  };
  backend.makeTensorInfo = function (this: Backend, shape, dtype, values) {
    const info = saved.makeTensorInfo.call(this, shape, dtype, values);
    made.add(info.dataId);
    return info;
  };
  backend.write = function (this: Backend, values, shape, dtype) {
    const dataId = saved.write.call(this, values, shape, dtype);
    made.add(dataId);
    return dataId;
  };
  let output: tf.Tensor;
  try {
    output = run(own);
  } catch (error) {
    tf.dispose(own);
    throw error;
  } finally {
    for (const [key, method] of Object.entries(saved)) {
      if (ownKeys.includes(key)) (backend as unknown as Record<string, unknown>)[key] = method;
      else delete (backend as unknown as Record<string, unknown>)[key];
    }
  }
  const last = dispatches[dispatches.length - 1];
  if (!last || last.output !== output.dataId) unsafe ||= 'an output not written by the last dispatch';
  if (dispatches.some((d) => !d.bytes)) unsafe ||= 'a dispatch without uniforms';
  if (unsafe) {
    tf.dispose(own);
    return { output, recorded: null };
  }
  return { output, recorded: new Recorded(backend, dispatches, own, output) };
}

function firstDifferentWord(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return -1;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i >> 2;
  return -1;
}

/**
 * Copies `source` into `target` (same dtype and size; target on the GPU): from the CPU values
 * where the source has not been uploaded (a queue write: nothing unsubmitted may read target),
 * else (or `onEncoder`) on tfjs's command encoder, after what it holds.
 */
function copyInto(backend: Backend, target: tf.Tensor, source: tf.Tensor, onEncoder = false): void {
  const targetBuffer = backend.tensorMap.get(target.dataId)!.resource as GpuBuffer;
  const data = backend.tensorMap.get(source.dataId)!;
  if (!onEncoder && data.resource == null && data.values != null) {
    backend.queue.writeBuffer(targetBuffer, 0, source.dtype === 'int32' ? Int32Array.from(data.values) : Float32Array.from(data.values));
    return;
  }
  backend.uploadToGPU(source.dataId);
  backend.ensureCommandEncoderReady();
  backend.endComputePassEncoder();
  backend.commandEncoder!.copyBufferToBuffer(backend.tensorMap.get(source.dataId)!.resource as GpuBuffer, 0, targetBuffer, 0, 4 * source.size);
  // Not released to the pool (and rewritten) before this encoder is submitted.
  backend.commandQueueOwnedIds.add(source.dataId);
}

class Recorded implements RecordedDecodingStep {
  private readonly kept = new Set<object>();
  private readonly uniforms: GpuBuffer;
  private readonly block: ArrayBuffer;
  private readonly words: Int32Array;
  private readonly moving: Array<{ word: number; base: number; perStep: number }> = [];
  private readonly groups: unknown[] = [];
  /** The encoder the last step was recorded on: written buffers wait for it to be submitted. */
  private lastEncoder: GpuEncoder | null;
  private disposed = false;

  constructor(
    private readonly backend: Backend,
    private readonly dispatches: Captured[],
    private readonly own: tf.Tensor[],
    private readonly output: tf.Tensor,
  ) {
    for (const d of dispatches) {
      for (const dataId of [d.output, ...d.inputs]) {
        if (this.kept.has(dataId)) continue;
        this.kept.add(dataId);
        backend.incRef(dataId);
      }
    }
    const align = backend.device.limits.minUniformBufferOffsetAlignment ?? 256;
    const offsets: number[] = [];
    let size = 0;
    for (const d of dispatches) {
      offsets.push(size);
      size += Math.ceil(d.bytes!.length / align) * align;
    }
    this.block = new ArrayBuffer(size);
    this.words = new Int32Array(this.block);
    dispatches.forEach((d, i) => {
      new Uint8Array(this.block, offsets[i], d.bytes!.length).set(d.bytes!);
      for (const m of d.moving) this.moving.push({ ...m, word: offsets[i] / 4 + m.word });
    });
    this.uniforms = backend.device.createBuffer({ size, usage: UNIFORM | COPY_DST });
    liveBuffers++;
    backend.queue.writeBuffer(this.uniforms, 0, this.block);
    const buffer = (dataId: object) => backend.tensorMap.get(dataId)!.resource as GpuBuffer;
    dispatches.forEach((d, i) => {
      const entries: Array<{ binding: number; resource: { buffer: GpuBuffer; offset?: number; size?: number } }> = [d.output, ...d.inputs].map((dataId, binding) => ({ binding, resource: { buffer: buffer(dataId) } }));
      entries.push({ binding: entries.length, resource: { buffer: this.uniforms, offset: offsets[i], size: d.bytes!.length } });
      this.groups.push(backend.device.createBindGroup({ layout: d.pipeline.getBindGroupLayout(0), entries }));
    });
    this.lastEncoder = backend.commandEncoder;
  }

  produced(tensor: tf.Tensor): boolean {
    return !this.disposed && tensor.dataId === this.output.dataId;
  }

  replay(inputs: tf.Tensor[], stepsSinceCapture: number): tf.Tensor | null {
    const { backend, own } = this;
    if (this.disposed || tf.backend() !== (backend as unknown) || timing(backend)) return null;
    const fits = inputs.length === own.length && inputs.every((t, i) => t.dtype === own[i].dtype && t.size === own[i].size && t.shape.join() === own[i].shape.join());
    if (!fits) return null;
    // A queue write lands before anything still unsubmitted: the last step must be submitted first.
    if (backend.commandEncoder && backend.commandEncoder === this.lastEncoder) {
      backend.endComputePassEncoder();
      backend.submitQueue();
    }
    if (this.moving.length > 0) {
      let lo = Infinity;
      let hi = -1;
      for (const m of this.moving) {
        this.words[m.word] = m.base + m.perStep * stepsSinceCapture;
        lo = Math.min(lo, m.word);
        hi = Math.max(hi, m.word);
      }
      backend.queue.writeBuffer(this.uniforms, 4 * lo, this.block, 4 * lo, 4 * (hi - lo + 1));
    }
    inputs.forEach((t, i) => copyInto(backend, own[i], t));
    backend.ensureCommandEncoderReady();
    backend.endComputePassEncoder();
    const pass = backend.commandEncoder!.beginComputePass();
    this.dispatches.forEach((d, i) => {
      pass.setPipeline(d.pipeline);
      pass.setBindGroup(0, this.groups[i]);
      pass.dispatchWorkgroups(d.dispatch[0], d.dispatch[1], d.dispatch[2]);
    });
    pass.end();
    this.lastEncoder = backend.commandEncoder;
    countRecordedDispatches(this.dispatches.length);
    // Another tensor on the captured output's buffer (as tfjs's reshape shares one), without the
    // copy a read of an earlier call's left on the CPU (tfjs reads that before the buffer).
    const { dataId, shape, dtype } = this.output;
    backend.tensorMap.get(dataId)!.values = null;
    backend.incRef(dataId);
    return (tf.engine() as unknown as Engine).makeTensorFromTensorInfo({ dataId, shape, dtype }, backend);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const { backend } = this;
    // What is recorded runs before the buffers go back to tfjs's pool (which may write them).
    if (backend.commandEncoder) {
      backend.endComputePassEncoder();
      backend.submitQueue();
    }
    this.uniforms.destroy();
    liveBuffers--;
    for (const dataId of this.kept) if (backend.disposeData(dataId)) (tf.engine() as unknown as Engine).removeDataId(dataId, backend);
    this.kept.clear();
    tf.dispose(this.own);
  }
}
