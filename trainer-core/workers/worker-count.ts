import { availableParallelism } from 'node:os';
import type { BackendName } from '../backend';
import { workerThreadsUnavailable } from './worker-pool';

/** Most shards `auto` starts: past this, the gradient transfers cost more than the threads give. */
const AUTO_LIMIT = 8;

/**
 * How many shards (the main thread and worker threads) a run uses, and why when it is fewer than
 * asked. `auto` takes the machine's cores on a CPU backend (TurnLab's transformer or a pretrained
 * model alike) and 1 where a device does the work (config checks refuse an explicit count there).
 */
export function resolveWorkerCount(
  setting: number | 'auto',
  context: { backend: BackendName; cores?: number },
): { count: number; note: string | null } {
  if (setting !== 'auto' && setting <= 1) return { count: 1, note: null };
  const unavailable = workerThreadsUnavailable();
  if (unavailable) return { count: 1, note: `workers: 1 (${unavailable})` };
  if (setting !== 'auto') return { count: setting, note: null };
  if (context.backend !== 'wasm' && context.backend !== 'cpu') return { count: 1, note: `workers: auto is 1 on the ${context.backend} backend (the device does the work)` };
  const cores = context.cores ?? availableParallelism();
  return { count: Math.max(1, Math.min(cores, AUTO_LIMIT)), note: null };
}
