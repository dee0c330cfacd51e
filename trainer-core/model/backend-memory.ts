/**
 * Running out of backend memory, said in words. The wasm backend's heap is 32-bit and stops at
 * 4 GB; past that its malloc returns null and the next kernel fails with "memory access out of
 * bounds", which names neither the cause nor the config key that fixes it.
 */
import * as tf from '@tensorflow/tfjs';

export class BackendMemoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendMemoryError';
  }
}

// The wasm heap's two ways: the first kernel past a full heap writes out of bounds, and a tensor
// registered after that aborts the module with an empty reason ("Aborted(). Build with
// -sASSERTIONS ..."). The last two: Node's own words for a worker thread that exhausted its
// JavaScript heap.
const OUT_OF_MEMORY = /memory access out of bounds|out of memory|Cannot enlarge memory|Aborted\(OOM\)|Aborted\(\)\. Build with -sASSERTIONS|failed to allocate|ERR_WORKER_OUT_OF_MEMORY|reaching memory limit/i;

export function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && OUT_OF_MEMORY.test(error.message);
}

/**
 * `error` itself, or, when it is the backend running out of memory, a BackendMemoryError saying
 * what was being computed (`doing`) and which key to lower (`fix`).
 */
export function explainOutOfMemory(error: unknown, doing: string, fix: string): unknown {
  if (!isOutOfMemory(error)) return error;
  const backend = tf.getBackend();
  const limit = backend === 'wasm' ? " (the wasm backend's heap stops at 4 GB)" : '';
  return new BackendMemoryError(`the ${backend} backend ran out of memory ${doing}${limit}: ${fix} (${(error as Error).message})`);
}

/** How a micro-batch's size is named in the config, by what its loss trains. */
export const MICRO_BATCH_KEY: Record<'actor' | 'critic' | 'supervised', string> = {
  actor: 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu (micro_batch_size_per_gpu sets it and the critic\'s)',
  critic: 'critic.ppo_micro_batch_size_per_gpu (micro_batch_size_per_gpu sets it and the actor\'s)',
  supervised: "warm_start.batch_size (by default the actor's ppo_micro_batch_size_per_gpu)",
};

/** What else makes a micro-batch's gradient smaller, when it is one row already or alongside fewer rows. */
function shorterRows(checkpointing: boolean): string {
  const recompute = checkpointing ? '' : 'set actor_rollout_ref.model.enable_gradient_checkpointing=true (recomputes each layer in the backward pass), or ';
  return `${recompute}shorten the rows: lower agent_proxy.max_context_window (turns a row carries), agent_proxy.max_turn or actor_rollout_ref.rollout.response_length`;
}

/** The error of sampling replies for `rows` episodes at once, explained when memory ran out. */
export function explainSamplingMemory(error: unknown, rows: number): unknown {
  return explainOutOfMemory(
    error,
    `sampling replies for ${rows} episodes at once`,
    'play fewer episodes per rollout (es_manager.train.env_groups or group_size; es_manager.val.* for validation; --episodes of `turnlab eval`), or shorten their context (agent_proxy.max_context_window, actor_rollout_ref.rollout.response_length)',
  );
}

/** The error of scoring `rows` rows outside the update (old, reference logprobs; values), explained when memory ran out. */
export function explainScoringMemory(error: unknown, rows: number, width: number): unknown {
  const fix = rows > 1 ? `lower ${MICRO_BATCH_KEY.actor} (now ${rows}: rows scored per pass), or ${shorterRows(true)}` : `the pass is one row already; ${shorterRows(true)}`;
  return explainOutOfMemory(error, `scoring ${rows} ${rows === 1 ? 'row' : 'rows'} of up to ${width} tokens`, fix);
}

/** Runs a scoring pass in tf.tidy, its out-of-memory error explained (explainScoringMemory). */
export function scoredRows(score: () => tf.NamedTensorMap, rows: number, width: number): tf.NamedTensorMap {
  try {
    return tf.tidy(score);
  } catch (error) {
    throw explainScoringMemory(error, rows, width);
  }
}

/**
 * The error of a micro-batch's gradient, explained when the backend ran out of memory. A
 * micro-batch of one row cannot be lowered: the advice is then the keys that shrink a row's
 * memory instead.
 */
export function explainMicroBatchMemory(error: unknown, role: keyof typeof MICRO_BATCH_KEY, rows: number, width: number, checkpointing = false): unknown {
  const fix = rows > 1
    ? `lower ${MICRO_BATCH_KEY[role]} (now ${rows}), or ${shorterRows(checkpointing)}`
    : `the micro-batch is one row already; ${shorterRows(checkpointing)}`;
  return explainOutOfMemory(error, `computing the gradients of ${rows} ${rows === 1 ? 'row' : 'rows'} of up to ${width} tokens`, fix);
}

interface PooledBuffer {
  size: number;
  destroy(): void;
}

interface BufferPoolOwner {
  bufferManager?: { freeBuffers: Map<string, PooledBuffer[]>; numFreeBuffers: number; numBytesAllocated: number };
}

/**
 * Frees the device memory a backend keeps for reuse and returns how many bytes. tfjs's WebGPU
 * backend keeps every released buffer, keyed by its exact size, for a later tensor of that size,
 * and never frees one: a rollout whose prompts and cache widths change every turn leaves buffers
 * of sizes that may never recur, so GPU memory grew with every iteration. Called between the
 * phases of an iteration, it keeps memory flat at the cost of allocating again. Live tensors are
 * untouched, and a released buffer is in the pool only once the queue that used it is submitted,
 * where destroying it is safe. Other backends: 0.
 */
export function releasePooledDeviceMemory(): number {
  const manager = (tf.backend() as unknown as BufferPoolOwner).bufferManager;
  if (!manager?.freeBuffers) return 0;
  let bytes = 0;
  // Keys stay (with empty lists): tfjs skips releasing buffers while its pool map is empty.
  for (const list of manager.freeBuffers.values()) {
    for (const buffer of list) {
      bytes += buffer.size;
      buffer.destroy();
    }
    list.length = 0;
  }
  manager.numFreeBuffers = 0;
  manager.numBytesAllocated -= bytes;
  return bytes;
}
