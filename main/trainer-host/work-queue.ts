import { availableParallelism } from 'node:os';

/** Trainings at once when none is asked for: half the cores, as each trainer uses several threads. */
export function defaultConcurrency(cores = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / 2));
}

/**
 * Runs `work` on each item, never more than `concurrency` at once, in order of the items;
 * resolves with the outcomes in that order once all have settled. Items not started by the time
 * `cancelled()` says true are skipped (their outcome is undefined).
 */
export async function runQueued<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
  cancelled: () => boolean = () => false,
): Promise<Array<PromiseSettledResult<R> | undefined>> {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a whole number of at least 1, not ${concurrency}`);
  const outcomes: Array<PromiseSettledResult<R> | undefined> = items.map(() => undefined);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length && !cancelled()) {
      const index = next++;
      try {
        outcomes[index] = { status: 'fulfilled', value: await work(items[index], index) };
      } catch (reason) {
        outcomes[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return outcomes;
}
