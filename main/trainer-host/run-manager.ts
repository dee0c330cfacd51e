import type { ActiveTrainingDto, ResumeRunRequest, StartRunRequest } from '../../preload/contract';
import { UNFINISHED_STATUSES } from '../store/types';
import type { Store } from '../store/db';
import { finalValSuccess, planSeedGroup, thisProcessOwner, type SeedGroupRequest } from './seed-group';
import { defaultConcurrency, runQueued } from './work-queue';
import type { TrainerMessage } from './channel';
import type { TrainerLauncher, TrainerProcess } from './trainer-process';

/**
 * Starts, stops and watches trainer processes for the app. Each run trains in its own process
 * (the `turnlab` command), so a crash or a kill never takes the app down; when a process dies
 * without finishing its run, the run is marked `interrupted` and can be resumed from its last
 * checkpoint. The trainer reports its run id and progress, and is asked to stop, over the typed
 * channel of channel.ts.
 */

interface Active {
  child: TrainerProcess;
  startedAt: number;
  stopRequested: boolean;
}

export type ProgressMessage = Extract<TrainerMessage, { type: 'progress' }>;

/** How one run of a seed group ended. */
export interface SeedRunOutcome {
  seed: number;
  name: string;
  /** Null when its trainer refused to start (no run was created). */
  runId: number | null;
  status: string;
  finalValSuccess: number | null;
  /** From the trainer's start to its exit, queueing excluded. */
  wallMs: number;
  error: string | null;
}

export interface SeedGroupStart {
  group: string;
  /** The first run's id once it exists; rejects with the reason when its trainer refused. */
  firstRunId: Promise<number>;
  /** Every run's outcome, in the order of the seeds, once all have ended. */
  done: Promise<SeedRunOutcome[]>;
  /** Leaves the seeds not yet started unstarted (Ctrl-C); running ones are stopped with stop(). */
  cancel(): void;
  /** Whether the group was stopped, here by cancel() or by another process (turnlab stop --group, the workbench). */
  wasStopped(): boolean;
}

export interface SeedGroupHooks {
  /** Trainings at once; defaultConcurrency() when absent. */
  concurrency?: number;
  onRunCreated?: (seed: number, runId: number, name: string) => void;
  /** Hears, once, that the group was stopped: its seeds not yet started will not start. */
  onStopped?: () => void;
}

export class RunManager {
  private readonly active = new Map<number, Active>();
  private readonly progressListeners = new Set<(message: ProgressMessage) => void>();
  /** Set when the app quits: queued seeds start no trainer after that. */
  private disposed = false;

  constructor(
    private readonly store: Store,
    /** Starts `turnlab` commands; evaluations use it too. */
    readonly launcher: TrainerLauncher,
  ) {}

  start(request: StartRunRequest): Promise<{ runId: number }> {
    if (request.seeds) {
      // A group answers with its first run, as a single run does; the others follow in the queue.
      const { seeds, concurrency, ...rest } = request;
      try {
        return this.startSeedGroup({ ...rest, seeds }, { concurrency }).firstRunId.then((runId) => ({ runId }));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
    const args = ['train', '--config', request.configPath, ...setArgs(request.overrides)];
    if (request.name) args.push('--name', request.name);
    return this.launch(args);
  }

  /**
   * Starts a group of runs that differ only by seed, queued so that at most `concurrency` train
   * at once. A trainer that refuses to start (its run never created) cancels the seeds not yet
   * started: they would be refused the same way.
   */
  startSeedGroup(request: SeedGroupRequest, hooks: SeedGroupHooks = {}): SeedGroupStart {
    const plan = planSeedGroup(this.store, request);
    const concurrency = hooks.concurrency ?? defaultConcurrency();
    const queue = this.store.seedQueue;
    const owner = thisProcessOwner();
    let refused = false;
    let stopped = false;
    // Stopped here (Ctrl-C, cancel) or by another process through the queue's rows.
    const noteStopped = () => {
      if (stopped) return;
      stopped = true;
      hooks.onStopped?.();
    };
    queue.enqueue(plan.group, plan.runs.map((run) => ({ seed: run.seed, runName: run.name })), owner);
    let first: { resolve: (id: number) => void; reject: (error: Error) => void } | undefined;
    const firstRunId = new Promise<number>((resolve, reject) => (first = { resolve, reject }));
    // Awaited by the caller or not at all: a refusal is reported through `done` as well.
    firstRunId.catch(() => {});
    const done = runQueued(
      plan.runs,
      concurrency,
      async (run, index): Promise<SeedRunOutcome | undefined> => {
        if (this.disposed || !this.store.isOpen) return undefined;
        if (!queue.take(plan.group, run.seed)) {
          noteStopped();
          return undefined;
        }
        const began = Date.now();
        let ended!: () => void;
        const exited = new Promise<void>((resolve) => (ended = resolve));
        try {
          const { runId } = await this.launch(run.args, ended);
          if (index === 0) first?.resolve(runId);
          hooks.onRunCreated?.(run.seed, runId, run.name);
          // Stopped while this trainer was being set up, when no one could stop its run yet.
          if (this.store.isOpen && queue.isStopped(plan.group) && this.active.has(runId)) {
            noteStopped();
            this.stop(runId);
          }
          await exited;
          // The store closes when the app quits, before the trainers it asked to stop have ended.
          const open = this.store.isOpen;
          const record = open ? this.store.runs.get(runId) : undefined;
          return {
            seed: run.seed,
            name: run.name,
            runId,
            status: record?.status ?? (open ? 'deleted' : 'unknown (the app quit first)'),
            finalValSuccess: record ? finalValSuccess(this.store, runId) : null,
            wallMs: Date.now() - began,
            error: record?.error ?? null,
          };
        } catch (error) {
          refused = true;
          const reason = error instanceof Error ? error : new Error(String(error));
          first?.reject(reason);
          return { seed: run.seed, name: run.name, runId: null, status: 'refused', finalValSuccess: null, wallMs: Date.now() - began, error: reason.message };
        }
      },
      () => refused || stopped || this.disposed,
    ).then((outcomes) => {
      if (this.store.isOpen) queue.release(owner, plan.group);
      return outcomes.map(
        (o, i) =>
          (o?.status === 'fulfilled' ? o.value : undefined) ?? {
            seed: plan.runs[i].seed,
            name: plan.runs[i].name,
            runId: null,
            status: 'not started',
            finalValSuccess: null,
            wallMs: 0,
            error: stopped
              ? 'not started: the group was stopped'
              : refused
                ? 'not started: an earlier run of the group was refused'
                : 'not started: the app quit first',
          },
      );
    });
    void done.then(() => first?.reject(new Error('no run of the group started')));
    const cancel = () => {
      if (this.store.isOpen) queue.stop(plan.group);
      noteStopped();
    };
    return { group: plan.group, firstRunId, done, cancel, wasStopped: () => stopped };
  }

  resume(request: ResumeRunRequest): Promise<{ runId: number }> {
    const ref = request.checkpointId !== undefined ? `ckpt:${request.checkpointId}` : String(request.runId);
    if (request.runId !== undefined && this.active.has(request.runId) && !request.fork) {
      return Promise.reject(new Error(`run ${request.runId} is training already; stop it before resuming`));
    }
    const args = ['resume', ref, ...setArgs(request.overrides)];
    if (request.fork) args.push('--fork');
    if (request.discardLater && !request.fork) args.push('--discard-later');
    if (request.name) args.push('--name', request.name);
    return this.launch(args);
  }

  stop(runId: number): void {
    const entry = this.active.get(runId);
    if (!entry) throw new Error(`run ${runId} has no trainer process in this app`);
    entry.stopRequested = true;
    this.store.runs.markStopping(runId);
    entry.child.requestStop();
  }

  /** Hears every trainer's progress (one message per iteration); returns the unsubscribe. */
  onProgress(listener: (message: ProgressMessage) => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  list(): ActiveTrainingDto[] {
    return [...this.active.entries()].map(([runId, a]) => ({ runId, pid: a.child.pid ?? -1, startedAt: a.startedAt, stopRequested: a.stopRequested }));
  }

  /**
   * Asks every trainer to stop after its iteration (the app is quitting) and starts no queued
   * seed. The store may close before they exit: each trainer records its own end.
   */
  dispose(): void {
    this.disposed = true;
    if (this.store.isOpen) this.store.seedQueue.release(thisProcessOwner());
    for (const entry of this.active.values()) entry.child.requestStop();
  }

  /** `onEnd` hears the process exit, whether or not it created its run. */
  private launch(args: string[], onEnd?: () => void): Promise<{ runId: number }> {
    const child = this.launcher(['--data-dir', this.store.dataDir, ...args]);
    child.stdout?.resume();
    return new Promise((resolve, reject) => {
      let runId: number | null = null;
      let failure: string | null = null;
      // Kept for the error of a process that dies without a word on the channel (a crash).
      const tail: string[] = [];
      let buffered = '';
      child.stderr?.on('data', (chunk: Buffer | string) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) {
          tail.push(line);
          if (tail.length > 20) tail.shift();
        }
      });
      child.onMessage((message) => {
        if (message.type === 'run' && runId === null) {
          runId = message.runId;
          this.active.set(runId, { child, startedAt: Date.now(), stopRequested: false });
          resolve({ runId });
        } else if (message.type === 'progress') {
          for (const listener of this.progressListeners) listener(message);
        } else if (message.type === 'failed') {
          failure = message.message;
        }
      });
      child.onError((error) => {
        if (runId === null) reject(error);
        onEnd?.();
      });
      child.onExit((code, signal) => {
        onEnd?.();
        if (runId === null) {
          const reason = failure ?? tail.filter((l) => l.trim()).pop()?.replace(/^turnlab: /, '') ?? `exit code ${code ?? signal}`;
          reject(new Error(reason));
          return;
        }
        this.active.delete(runId);
        // Closed when the app quit before this trainer ended: the trainer recorded how it ended,
        // and one that crashed is marked interrupted when the store next opens.
        if (!this.store.isOpen) return;
        const run = this.store.runs.get(runId);
        if (run && UNFINISHED_STATUSES.has(run.status)) {
          this.store.runs.update(runId, {
            status: 'interrupted',
            finishedAt: Date.now(),
            error: `trainer process ended (${signal ? `signal ${signal}` : `exit code ${code}`}) before the run finished\n${tail.join('\n')}`,
          });
        }
      });
    });
  }
}

function setArgs(overrides: readonly string[] | undefined): string[] {
  return (overrides ?? []).flatMap((o) => ['--set', o]);
}
