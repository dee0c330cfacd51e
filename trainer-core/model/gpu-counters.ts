/**
 * Counts what keeps a GPU waiting during a timed section, on any tfjs backend: kernels run (every
 * op tfjs executes), GPU dispatches (WebGPU programs recorded; on the other backends there is no
 * GPU, so dispatches read as the kernel count), pipelines compiled (WebGPU shader compiles, each
 * a stall of milliseconds to seconds) and readbacks (on WebGPU, any read of a tensor still on the
 * GPU, each a wait for the queue to drain; elsewhere, the reads of values the caller asks for).
 *
 * Hooks are installed on the active backend instance once and cost one increment while no count
 * is running.
 */
import * as tf from '@tensorflow/tfjs';

export interface GpuCounts {
  kernels: number;
  dispatches: number;
  pipelinesCompiled: number;
  readbacks: number;
  /**
   * Of `dispatches`, those a recorded decoding step encoded itself (webgpu/step-recorder.ts),
   * past tfjs's recordAndSubmit: counted apart so a bench can say which path a step took.
   */
  recordedDispatches: number;
}

interface WebgpuInternals {
  pipelineCache: Record<string, unknown>;
  tensorMap: { get(dataId: object): { values?: unknown } | undefined };
  recordAndSubmit(...args: unknown[]): unknown;
}

interface Hookable {
  read(dataId: object): Promise<unknown>;
  readSync(dataId: object): unknown;
}

const totals = { kernels: 0, dispatches: 0, readbacks: 0, recordedDispatches: 0 };
const hooked = new WeakSet<object>();
let engineHooked = false;

function isWebgpu(backend: object): backend is WebgpuInternals & Hookable {
  return 'pipelineCache' in backend && 'recordAndSubmit' in backend;
}

/**
 * On WebGPU, every read of a tensor still on the GPU, whoever asks (a kernel that falls back to
 * the CPU stalls the queue too); values already downloaded are free.
 */
function hookWebgpu(backend: WebgpuInternals & Hookable): void {
  if (hooked.has(backend)) return;
  hooked.add(backend);
  const onDevice = (dataId: object) => backend.tensorMap.get(dataId)?.values == null;
  const read = backend.read.bind(backend);
  const readSync = backend.readSync.bind(backend);
  backend.read = (dataId) => {
    if (onDevice(dataId)) totals.readbacks++;
    return read(dataId);
  };
  backend.readSync = (dataId) => {
    if (onDevice(dataId)) totals.readbacks++;
    return readSync(dataId);
  };
  const record = backend.recordAndSubmit.bind(backend);
  backend.recordAndSubmit = (...args: unknown[]) => {
    totals.dispatches++;
    return record(...args);
  };
}

function hookEngine(): void {
  if (engineHooked) return;
  engineHooked = true;
  // runKernelFunc is where every op (and every registered custom kernel) enters the engine.
  const engine = tf.engine() as unknown as Hookable & { runKernelFunc(params: unknown): unknown };
  const run = engine.runKernelFunc.bind(engine);
  engine.runKernelFunc = (params: unknown) => {
    totals.kernels++;
    return run(params);
  };
  // Off WebGPU the values live in host memory: count the reads the caller asks for (data,
  // dataSync, array), the points where it waits for the backend.
  const read = engine.read.bind(engine);
  const readSync = engine.readSync.bind(engine);
  engine.read = (dataId) => {
    if (!isWebgpu(tf.backend())) totals.readbacks++;
    return read(dataId);
  };
  engine.readSync = (dataId) => {
    if (!isWebgpu(tf.backend())) totals.readbacks++;
    return readSync(dataId);
  };
}

/** Adds `count` dispatches encoded outside tfjs (a recorded decoding step's), to dispatches too. */
export function countRecordedDispatches(count: number): void {
  totals.dispatches += count;
  totals.recordedDispatches += count;
}

function pipelineCount(backend: object): number {
  return isWebgpu(backend) ? Object.keys(backend.pipelineCache).length : 0;
}

/** A running count on the active backend; `read()` gives the counts since it started. */
export interface GpuCounter {
  read(): GpuCounts;
}

export function startGpuCounter(): GpuCounter {
  const backend = tf.backend();
  hookEngine();
  const webgpu = isWebgpu(backend);
  if (webgpu) hookWebgpu(backend);
  const start = { ...totals, pipelines: pipelineCount(backend) };
  return {
    read: () => {
      const kernels = totals.kernels - start.kernels;
      return {
        kernels,
        dispatches: webgpu ? totals.dispatches - start.dispatches : kernels,
        pipelinesCompiled: pipelineCount(backend) - start.pipelines,
        readbacks: totals.readbacks - start.readbacks,
        recordedDispatches: webgpu ? totals.recordedDispatches - start.recordedDispatches : 0,
      };
    },
  };
}

/** Runs `section` and returns its result with the counts it caused. */
export async function countGpuWork<T>(section: () => Promise<T> | T): Promise<{ result: T; counts: GpuCounts }> {
  const counter = startGpuCounter();
  const result = await section();
  return { result, counts: counter.read() };
}
