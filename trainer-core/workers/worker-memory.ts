/**
 * A worker thread that ran out of memory, said in words: each worker holds its own copy of the
 * run's models (a pretrained model's base weights included) in its own backend heap, so the key
 * that helps is the worker count.
 */
import { BackendMemoryError, isOutOfMemory } from '../model/backend-memory';

export const WORKER_MEMORY_FIX =
  'each worker thread holds its own copy of the models (a pretrained model\'s base weights included): lower trainer.workers (1 runs everything on the main thread)';

/** Why worker `index` stopped (its 'error' event), with the key that helps when memory ran out. */
export function workerFailure(index: number, error: Error): Error {
  if (isOutOfMemory(error) || (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new BackendMemoryError(`worker ${index} ran out of memory (${error.message.split('\n')[0]}): ${WORKER_MEMORY_FIX}`);
  }
  return new Error(`worker ${index} failed: ${error.stack ?? error.message}`);
}
