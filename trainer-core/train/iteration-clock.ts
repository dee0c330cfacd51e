/**
 * Where an iteration's time and memory go, as verl logs them: `timing_s/<phase>` for the phases
 * (verl's names: ref, values, adv, update_critic, update_actor, testing) and `timing_s/step` for
 * the whole iteration, `perf/max_memory_allocated_gb` for the most tensor memory the backend held
 * at the end of any phase, `perf/cpu_memory_used_gb` for this process's resident memory. Worker
 * threads' memory is their own and not counted. On WebGPU a phase's seconds end when its work is
 * queued, not done (no wait is added for the figure), so the GPU's time shows in the next read.
 */
import * as tf from '@tensorflow/tfjs';

const GIB = 1024 ** 3;

/** What the backend holds now: its buffer pool on WebGPU, tensors elsewhere. */
function backendBytes(): number {
  const memory = tf.memory() as tf.MemoryInfo & { numBytesAllocatedInGPU?: number };
  return memory.numBytesAllocatedInGPU ?? memory.numBytes;
}

export interface IterationClock {
  /** Runs `fn`, adding its seconds to `timing_s/<name>` and noting the memory held after it. */
  time<T>(name: string, fn: () => Promise<T> | T): Promise<T>;
  /** Notes the memory held now (after a phase timed elsewhere, e.g. the rollout). */
  sample(): void;
  /** The figures so far, with `timing_s/step` up to now. */
  metrics(): Record<string, number>;
}

export function startIterationClock(now: () => number = () => performance.now()): IterationClock {
  const start = now();
  const seconds: Record<string, number> = {};
  let peakBytes = backendBytes();
  const sample = () => {
    peakBytes = Math.max(peakBytes, backendBytes());
  };
  return {
    async time(name, fn) {
      const began = now();
      try {
        return await fn();
      } finally {
        seconds[name] = (seconds[name] ?? 0) + (now() - began) / 1000;
        sample();
      }
    },
    sample,
    metrics() {
      sample();
      const out: Record<string, number> = {};
      for (const [name, value] of Object.entries(seconds)) out[`timing_s/${name}`] = value;
      out['timing_s/step'] = (now() - start) / 1000;
      out['perf/max_memory_allocated_gb'] = peakBytes / GIB;
      out['perf/cpu_memory_used_gb'] = process.memoryUsage().rss / GIB;
      return out;
    },
  };
}
