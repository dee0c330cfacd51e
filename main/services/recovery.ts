import type { Store } from '../store/db';
import { markAbandonedRuns, type LivenessOptions } from './run-owner';

/**
 * Start-up recovery: runs left `queued`, `running` or `stopping` by a process that no longer
 * exists become `interrupted` (resumable from their last checkpoint). A run whose recorded
 * trainer is still alive on this host (the CLI training in another terminal) is left alone, and
 * so is one recorded on another host while its heartbeat is fresh. Which owner is gone is
 * decided in run-owner.ts, for the app, `serve` and the CLI alike.
 */

export { abandonedReason, isProcessAlive, QUEUED_GRACE_MS } from './run-owner';

export type RecoveryOptions = LivenessOptions;

/** Marks abandoned runs `interrupted`; returns their ids. */
export function recoverInterruptedRuns(store: Store, options: RecoveryOptions = {}): number[] {
  return markAbandonedRuns(store, options);
}
