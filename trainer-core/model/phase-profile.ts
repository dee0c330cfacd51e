/**
 * Where an iteration's time goes, phase by phase, for the benches (`bench/lib/iteration-run.ts
 * --phases`): wall seconds, the GPU work counted by gpu-counters.ts (dispatches, kernels,
 * readbacks, pipelines compiled) and whatever the phase counts itself (tokens fed, rows, passes).
 *
 * Off unless a bench starts a profile: `phase(name, fn)` then just runs fn. While a profile runs,
 * phases nest (the rollout's prefill is recorded as `rollout/prefill`), and with `sync` each phase
 * ends by waiting for the work it queued on the GPU, so its seconds are its own and not the next
 * phase's first read's: a cost of one wait per phase, which changes nothing that is computed.
 */
import * as tf from '@tensorflow/tfjs';
import { startGpuCounter, type GpuCounts } from './gpu-counters';
import { flushQueue } from './webgpu/program';

export interface PhaseRecord {
  /** Nested name, e.g. `rollout/decode`. */
  name: string;
  /** Times the phase ran since the last take(). */
  calls: number;
  seconds: number;
  gpu: GpuCounts;
  /** The phase's own counts (phaseCount), e.g. tokens fed. */
  counts: Record<string, number>;
  /**
   * The most memory the backend held as the phase ended, over its calls: on WebGPU what its
   * buffer pool has allocated (live tensors and freed buffers kept for reuse), elsewhere tensors.
   */
  endBytes: number;
}

export interface PhaseProfile {
  /** The records since the last take(), in the order each phase first ran; then starts afresh. */
  take(): PhaseRecord[];
  stop(): void;
}

interface Running {
  sync: boolean;
  stack: string[];
  records: Map<string, PhaseRecord>;
}

let running: Running | null = null;

export function startPhaseProfile(options: { sync?: boolean } = {}): PhaseProfile {
  const profile: Running = { sync: options.sync ?? true, stack: [], records: new Map() };
  running = profile;
  return {
    take: () => {
      const out = [...profile.records.values()];
      profile.records = new Map();
      return out;
    },
    stop: () => {
      if (running === profile) running = null;
    },
  };
}

/** Runs `fn` as phase `name` of the running profile (or just runs it when none runs). */
export async function phase<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
  const profile = running;
  if (!profile) return fn();
  profile.stack.push(name);
  const record = recordOf(profile, profile.stack.join('/'));
  const counter = startGpuCounter();
  const start = performance.now();
  try {
    const result = await fn();
    // Counted before the wait: the wait reads nothing back and dispatches nothing.
    const gpu = counter.read();
    if (profile.sync) await drainGpu();
    record.calls++;
    record.seconds += (performance.now() - start) / 1000;
    for (const key of Object.keys(gpu) as (keyof GpuCounts)[]) record.gpu[key] += gpu[key];
    const memory = tf.memory() as tf.MemoryInfo & { numBytesAllocatedInGPU?: number };
    record.endBytes = Math.max(record.endBytes, memory.numBytesAllocatedInGPU ?? memory.numBytes);
    return result;
  } finally {
    profile.stack.pop();
  }
}

/** Adds `n` to the running phase's count `key` (tokens fed, rows, passes). */
export function phaseCount(key: string, n: number): void {
  const profile = running;
  if (!profile || profile.stack.length === 0) return;
  const counts = recordOf(profile, profile.stack.join('/')).counts;
  counts[key] = (counts[key] ?? 0) + n;
}

function recordOf(profile: Running, path: string): PhaseRecord {
  let record = profile.records.get(path);
  if (!record) {
    record = { name: path, calls: 0, seconds: 0, gpu: { kernels: 0, dispatches: 0, pipelinesCompiled: 0, readbacks: 0, recordedDispatches: 0 }, counts: {}, endBytes: 0 };
    profile.records.set(path, record);
  }
  return record;
}

interface QueueHolder {
  device?: { queue: { onSubmittedWorkDone(): Promise<void> } };
}

/** Waits until the GPU has run everything queued so far (WebGPU; other backends run ops eagerly). */
async function drainGpu(): Promise<void> {
  const backend = tf.backend() as unknown as QueueHolder;
  if (!backend.device?.queue) return;
  flushQueue();
  await backend.device.queue.onSubmittedWorkDone();
}
