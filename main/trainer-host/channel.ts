/**
 * The typed channel between a trainer process and its host (the app, `turnlab serve`): Node's
 * IPC (`process.send`) in a child process, `process.parentPort` in Electron's utilityProcess.
 * The run id, progress and failures travel as messages, not as lines of human stderr, and a stop
 * is a message too: on Windows a signal is a hard kill, and no checkpoint would be saved.
 */

/** What a trainer tells its host. */
export type TrainerMessage =
  | { type: 'run'; runId: number; name: string }
  | { type: 'progress'; runId: number; iteration: number; total: number; metrics: Record<string, number> }
  | { type: 'failed'; message: string };

/** What a host asks of its trainer. */
export type HostMessage = { type: 'stop' };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The message, if `value` is a well-formed TrainerMessage; anything else is ignored. */
export function asTrainerMessage(value: unknown): TrainerMessage | null {
  if (!isRecord(value)) return null;
  if (value.type === 'run' && Number.isInteger(value.runId) && typeof value.name === 'string') return value as TrainerMessage;
  if (value.type === 'progress' && Number.isInteger(value.runId) && Number.isInteger(value.iteration) && Number.isInteger(value.total) && isRecord(value.metrics)) {
    return value as TrainerMessage;
  }
  if (value.type === 'failed' && typeof value.message === 'string') return value as TrainerMessage;
  return null;
}

export function isHostMessage(value: unknown): value is HostMessage {
  return isRecord(value) && value.type === 'stop';
}

/** The trainer's end of the channel. */
export interface HostChannel {
  send(message: TrainerMessage): void;
  /** Listens for host messages until close(). */
  onMessage(listener: (message: HostMessage) => void): void;
  /** Stops listening, so the channel does not keep the process alive. */
  close(): void;
}

interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  off(event: 'message', listener: (event: { data: unknown }) => void): void;
}

/**
 * A host's pipes (the trainer's stdout and stderr) close when it dies: a write then fails with
 * EPIPE, which unhandled would end the trainer before it saves the checkpoint its host's going
 * asks for. Those last words go nowhere instead; any other stream error still ends it.
 */
function outliveClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
}

/** The channel to this process's host, or null when it was not started by one (a terminal). */
export function connectToHost(): HostChannel | null {
  const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (parentPort) {
    outliveClosedPipes();
    const listeners: Array<(event: { data: unknown }) => void> = [];
    return {
      send: (message) => parentPort.postMessage(message),
      onMessage(listener) {
        const wrapped = (event: { data: unknown }) => {
          if (isHostMessage(event.data)) listener(event.data);
        };
        listeners.push(wrapped);
        parentPort.on('message', wrapped);
      },
      close: () => listeners.splice(0).forEach((l) => parentPort.off('message', l)),
    };
  }
  if (typeof process.send === 'function' && process.connected) {
    outliveClosedPipes();
    const listeners: Array<(message: unknown) => void> = [];
    const disconnects: Array<() => void> = [];
    return {
      send(message) {
        // The host may have gone (the channel closed); the store still records everything.
        if (process.connected) process.send?.(message, undefined, {}, () => {});
      },
      onMessage(listener) {
        const wrapped = (message: unknown) => {
          if (isHostMessage(message)) listener(message);
        };
        // A host that went away (quit, crashed) cannot ask any more: stop as it would have.
        const gone = () => listener({ type: 'stop' });
        listeners.push(wrapped);
        process.on('message', wrapped);
        process.once('disconnect', gone);
        disconnects.push(gone);
        // A listener refs the channel; the trainer must still exit when its work is done.
        process.channel?.unref();
      },
      close() {
        listeners.splice(0).forEach((l) => process.off('message', l));
        disconnects.splice(0).forEach((l) => process.off('disconnect', l));
      },
    };
  }
  return null;
}
