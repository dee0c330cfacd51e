/**
 * Waiting out a busy database. SQLite's busy_timeout makes a write wait for another process's
 * write lock, but only so long; a trainer must not die because the app spent longer deleting a
 * large run. Its writes go through `retryWhileBusy`: bounded, with backoff, and asleep between
 * tries so the process (heartbeat, stop requests) keeps running.
 */

export interface RetryOptions {
  /** Give up (rethrow the busy error) once this much time has passed since the first try. */
  maxWaitMs?: number;
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Told before each wait, e.g. to log that the database is busy. */
  onRetry?: (attempt: number, delayMs: number, error: Error) => void;
}

const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_LOCKED']);

/** Whether `error` is SQLite giving up on a lock another connection holds. */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && BUSY_CODES.has(code);
}

export async function retryWhileBusy<T>(work: () => T, options: RetryOptions = {}): Promise<T> {
  const maxWaitMs = options.maxWaitMs ?? 10 * 60_000;
  let delay = options.firstDelayMs ?? 50;
  const maxDelay = options.maxDelayMs ?? 2000;
  const start = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return work();
    } catch (error) {
      if (!isBusyError(error) || Date.now() - start + delay > maxWaitMs) throw error;
      options.onRetry?.(attempt, delay, error as Error);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(maxDelay, delay * 2);
    }
  }
}
