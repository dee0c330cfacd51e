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
  const cores = context.cores ?? availableParallelism();
  if (setting !== 'auto') {
    // Kept, not cut to the cores: the same count gives the same run, so a run made on a larger
    // machine can be repeated here; but each thread holds its own copy of the models.
    const over = setting > cores ? `workers: ${setting} on ${cores} cores: each thread holds its own copy of the models and they share the cores, so this starts slowly and takes more memory for no more speed; the run is the one ${setting} workers give anywhere (trainer.workers=auto uses the cores)` : null;
    return { count: setting, note: over };
  }
  if (context.backend !== 'wasm' && context.backend !== 'cpu') return { count: 1, note: `workers: auto is 1 on the ${context.backend} backend (the device does the work)` };
  return { count: Math.max(1, Math.min(cores, AUTO_LIMIT)), note: null };
}
