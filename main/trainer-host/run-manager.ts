import type { ActiveTrainingDto, ResumeRunRequest, StartRunRequest } from '../../preload/contract';
import type { Store } from '../store/db';
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

const UNFINISHED = new Set(['queued', 'running', 'stopping']);

export class RunManager {
  private readonly active = new Map<number, Active>();
  private readonly progressListeners = new Set<(message: ProgressMessage) => void>();

  constructor(
    private readonly store: Store,
    /** Starts `turnlab` commands; evaluations use it too. */
    readonly launcher: TrainerLauncher,
  ) {}

  start(request: StartRunRequest): Promise<{ runId: number }> {
    const args = ['train', '--config', request.configPath, ...setArgs(request.overrides)];
    if (request.name) args.push('--name', request.name);
    return this.launch(args);
  }

  resume(request: ResumeRunRequest): Promise<{ runId: number }> {
    const ref = request.checkpointId !== undefined ? `ckpt:${request.checkpointId}` : String(request.runId);
    if (request.runId !== undefined && this.active.has(request.runId) && !request.fork) {
      return Promise.reject(new Error(`run ${request.runId} is training already; stop it before resuming`));
    }
    const args = ['resume', ref, ...setArgs(request.overrides)];
    if (request.fork) args.push('--fork');
    if (request.name) args.push('--name', request.name);
    return this.launch(args);
  }

  stop(runId: number): void {
    const entry = this.active.get(runId);
    if (!entry) throw new Error(`run ${runId} has no trainer process in this app`);
    entry.stopRequested = true;
    this.store.runs.update(runId, { status: 'stopping' });
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

  /** Asks every trainer to stop after its iteration (the app is quitting). */
  dispose(): void {
    for (const entry of this.active.values()) entry.child.requestStop();
  }

  private launch(args: string[]): Promise<{ runId: number }> {
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
      });
      child.onExit((code, signal) => {
        if (runId === null) {
          const reason = failure ?? tail.filter((l) => l.trim()).pop()?.replace(/^turnlab: /, '') ?? `exit code ${code ?? signal}`;
          reject(new Error(reason));
          return;
        }
        this.active.delete(runId);
        const run = this.store.runs.get(runId);
        if (run && UNFINISHED.has(run.status)) {
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
