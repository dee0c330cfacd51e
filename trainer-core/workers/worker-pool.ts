/**
 * The trainer's worker threads (trainer.workers): each has its own backend and copies of the
 * run's models, kept equal to the main thread's by sending the weights after every optimizer
 * step. The main thread is a shard itself, so N workers means N - 1 threads.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BackendName } from '../backend';
import type { TrainableModel } from '../model/trainable-model';
import type { Transformer } from '../model/transformer';
import { workerFailure } from './worker-memory';
import type { ModelRole, NamedArrays, WorkerModelSpec, WorkerReply, WorkerRequest, WorkerResults } from './protocol';

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);

/** Why worker threads cannot start in this build, or null when they can. */
export function workerThreadsUnavailable(): string | null {
  if (ENTRY.protocol !== 'file:' || !existsSync(fileURLToPath(ENTRY))) {
    return 'this build has no worker entry (worker threads run from the TypeScript sources, as the turnlab CLI does)';
  }
  return null;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** A worker's failure as an error of the same name, so the CLI tells a user error from a bug. */
export function workerError(index: number, reply: { error: string; name: string; message: string }): Error {
  const error = new Error(`worker ${index}: ${reply.name === 'Error' ? reply.error : reply.message}`);
  error.name = reply.name;
  error.stack = `worker ${index}: ${reply.error}`;
  return error;
}

class WorkerThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: Error | null = null;

  constructor(readonly index: number) {
    this.worker = new Worker(ENTRY);
    // Never keep the process alive for a worker: the pool's dispose ends them.
    this.worker.unref();
    this.worker.on('message', (reply: WorkerReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (reply.ok) waiting.resolve(reply.result);
      else waiting.reject(workerError(this.index, reply));
    });
    // The first cause is the one told: a worker that failed then exits, and the exit says less.
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const waiting of this.pending.values()) waiting.reject(this.failure);
      this.pending.clear();
    };
    this.worker.on('error', (error) => fail(workerFailure(this.index, error)));
    this.worker.on('exit', (code) => fail(new Error(`worker ${this.index} exited (code ${code})`)));
  }

  call<K extends WorkerRequest['type']>(request: Extract<WorkerRequest, { type: K }>, transfer: ArrayBuffer[] = []): Promise<WorkerResults[K]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<WorkerResults[K]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, request }, transfer);
    });
  }

  /** A request whose answer nobody waits for; a failure surfaces at the next awaited call. */
  send(request: WorkerRequest): void {
    this.call(request).catch((error: Error) => {
      this.failure ??= error;
    });
  }

  terminate(): Promise<number> {
    this.failure ??= new Error(`worker ${this.index} was stopped`);
    return this.worker.terminate();
  }
}

export class WorkerPool {
  private constructor(private readonly threads: WorkerThread[]) {}

  /** Starts `threads` workers on `backend`, each building the models `models` describes. */
  static async start(threads: number, backend: BackendName, models: Partial<Record<ModelRole, WorkerModelSpec>>): Promise<WorkerPool> {
    const pool = new WorkerPool(Array.from({ length: threads }, (_, i) => new WorkerThread(i + 1)));
    try {
      await Promise.all(pool.threads.map((t) => t.call({ type: 'init', backend, models })));
    } catch (error) {
      await pool.dispose();
      throw error;
    }
    return pool;
  }

  /** Worker threads (the main thread's shard not counted). */
  get size(): number {
    return this.threads.length;
  }

  thread(index: number): WorkerThread {
    return this.threads[index];
  }

  /** Sends `model`'s current weights to every worker (after an optimizer step). */
  async syncWeights(role: ModelRole, model: TrainableModel): Promise<void> {
    const arrays: NamedArrays = {};
    for (const [name, variable] of model.namedVariables()) arrays[name] = { shape: [...variable.shape], data: (await variable.data()) as Float32Array };
    await Promise.all(this.threads.map((t) => t.call({ type: 'weights', role, arrays })));
  }

  async dispose(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.terminate()));
  }
}

export type { WorkerThread };

/** TurnLab's transformer as a worker builds it: its config and current weights. */
export async function transformerSpec(model: Transformer): Promise<WorkerModelSpec> {
  return { kind: 'transformer', config: model.config, arrays: await model.toArrays() };
}

/**
 * Splits `count` jobs into `shards` contiguous blocks of near-equal size, as [start, end) pairs:
 * shard 0 (the main thread) takes the first, so results read back in job order.
 */
export function contiguousBlocks(count: number, shards: number): Array<[number, number]> {
  const blocks: Array<[number, number]> = [];
  let start = 0;
  for (let s = 0; s < shards; s++) {
    const end = start + Math.floor(count / shards) + (s < count % shards ? 1 : 0);
    blocks.push([start, end]);
    start = end;
  }
  return blocks;
}
