import type { TurnLabEvent } from '../../preload/contract';
import type { Store } from '../store/db';
import type { RunProgress } from '../store/repositories/runs';

/**
 * Turns changes in the store into workbench events. Trainers write the store from their own
 * processes, so nothing in this process hears about a new iteration: the watcher compares a
 * cheap per-run fingerprint (status, last iteration, name, tags, notes) every interval, and
 * only while someone listens.
 */

export type EventListener = (event: TurnLabEvent) => void;

export const EVENT_POLL_MS = 1000;

/** The events that lead from one fingerprint to the next. */
export function diffProgress(before: ReadonlyMap<number, RunProgress>, after: readonly RunProgress[]): TurnLabEvent[] {
  const events: TurnLabEvent[] = [];
  let listChanged = before.size !== after.length;
  for (const run of after) {
    const old = before.get(run.id);
    if (!old) {
      listChanged = true;
      events.push({ type: 'run-status', runId: run.id, status: run.status });
      continue;
    }
    if (old.status !== run.status) events.push({ type: 'run-status', runId: run.id, status: run.status });
    if (old.iteration !== run.iteration && run.iteration !== null) {
      events.push({ type: 'run-iteration', runId: run.id, iteration: run.iteration });
    }
    if (old.name !== run.name || old.tags !== run.tags || old.notes !== run.notes) listChanged = true;
  }
  if (listChanged) events.unshift({ type: 'runs-changed' });
  return events;
}

export class RunEventWatcher {
  private readonly listeners = new Set<EventListener>();
  private last = new Map<number, RunProgress>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly store: Store,
    private readonly intervalMs = EVENT_POLL_MS,
  ) {}

  /** Starts polling with the first listener and stops with the last; returns the unsubscribe. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    if (this.timer === null) {
      this.last = this.snapshot();
      this.timer = setInterval(() => this.check(), this.intervalMs);
      this.timer.unref?.();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  /** Compares now (also called right after an API call changed runs, for a prompt update). */
  check(): void {
    if (this.listeners.size === 0) return;
    let events: TurnLabEvent[];
    try {
      const now = this.store.runs.progress();
      events = diffProgress(this.last, now);
      this.last = new Map(now.map((r) => [r.id, r]));
    } catch {
      // A store closing under us (app quitting): no events this round.
      return;
    }
    for (const event of events) for (const listener of this.listeners) listener(event);
  }

  private snapshot(): Map<number, RunProgress> {
    return new Map(this.store.runs.progress().map((r) => [r.id, r]));
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
  }
}
