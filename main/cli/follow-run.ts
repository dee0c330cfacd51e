import type { Store } from '../store/db';
import { UNFINISHED_STATUSES, type RunStatus } from '../store/types';
import { abandonedReason, markAbandonedRuns } from '../services/run-owner';
import { progressLine } from './progress';

export interface FollowOptions {
  write(line: string): void;
  pollMs?: number;
  /** Set to stop following (Ctrl-C); the run goes on. */
  signal?: AbortSignal;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * `turnlab show --follow`: a run trained elsewhere (the workbench, another terminal, a seed
 * group) watched as `turnlab train` prints its own, one line per iteration and the lines its
 * trainer logs, from its latest iteration until it ends. Reads the store only: the trainer
 * writes, this polls. Resolves with the status it ended with, or null when told to stop.
 */
export async function followRun(store: Store, runId: number, options: FollowOptions): Promise<RunStatus | null> {
  const pollMs = options.pollMs ?? 1000;
  const first = store.runs.get(runId)!;
  // From the latest iteration, not the first: a long run's history is `turnlab export`'s job.
  let shown = store.metrics.latest(runId).reduce((most, m) => Math.max(most, m.iteration), 0) - 1;
  let logAfter = 0;
  let lastStatus: string | null = null;
  options.write(`following run ${runId} (${first.name}); Ctrl-C stops following, not the run`);
  for (;;) {
    markAbandonedRuns(store);
    const run = store.runs.get(runId);
    if (!run) {
      options.write(`run ${runId} was deleted`);
      return null;
    }
    // A folder this user may only read keeps an abandoned run's status: judged here instead.
    const info = store.readOnly ? store.runs.unfinished().find((r) => r.id === runId) : undefined;
    const gone = info ? abandonedReason(info) : null;
    if (gone !== null) {
      options.write(`run ${runId} was left ${run.status} and ${gone}`);
      return 'interrupted';
    }
    // An ended run logs nothing more (a resume is a new trainer, followed anew).
    const live = UNFINISHED_STATUSES.has(run.status);
    // The trainer logs the warm start's progress itself; a queued run with one under way is in it.
    const status = run.status === 'queued' && run.warmStartProgress ? 'warming up' : run.status;
    if (live && status !== lastStatus) options.write(`status: ${status}`);
    lastStatus = status;
    for (const line of store.logs.list(runId, logAfter)) {
      options.write(`[log] ${line.line}`);
      logAfter = line.id;
    }
    const total = (run.config as { trainer?: { total_training_steps?: number } } | null)?.trainer?.total_training_steps ?? 0;
    const byIteration = new Map<number, Record<string, number>>();
    // Iterations 0 and below hold the warm start's curves, not RL's iterations.
    for (const point of store.metrics.after(runId, Math.max(0, shown))) {
      const metrics = byIteration.get(point.iteration) ?? {};
      if (point.value !== null) metrics[point.name] = point.value;
      byIteration.set(point.iteration, metrics);
    }
    // An iteration's metrics land in one transaction: what is read is whole.
    for (const iteration of byIteration.keys()) {
      options.write(progressLine(iteration, total, byIteration.get(iteration)!));
      shown = iteration;
    }
    if (!live) {
      // The error may start with the status itself ("interrupted: the run was left ..."): said once.
      const detail = run.error?.startsWith(`${run.status}: `) ? run.error.slice(run.status.length + 2) : run.error;
      options.write(`run ${runId} ${run.status}${detail ? `: ${detail}` : ''}`);
      return run.status;
    }
    if (options.signal?.aborted) return null;
    await sleep(pollMs, options.signal);
    if (options.signal?.aborted) return null;
  }
}
