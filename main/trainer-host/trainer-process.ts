import { spawn } from 'node:child_process';
import { asTrainerMessage, type HostMessage, type TrainerMessage } from './channel';

/**
 * A `turnlab` command running in a process of its own (training, evaluation). The app runs it in
 * Electron's utilityProcess, `turnlab serve` and tests as a Node child process; the run manager
 * only sees this interface. Trainer and host talk over a typed channel (channel.ts); stdout and
 * stderr stay for people (and for the last words of a process that crashed).
 */
export interface TrainerProcess {
  readonly pid: number | undefined;
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  /**
   * Asks for a graceful stop over the channel: the trainer ends its iteration, saves a
   * checkpoint and exits. Works where a signal is a hard kill (Windows).
   */
  requestStop(): void;
  /** Well-formed messages from the trainer; anything else on the channel is ignored. */
  onMessage(listener: (message: TrainerMessage) => void): void;
  /** Fires once, after the process has exited and its output has been read. */
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  onError(listener: (error: Error) => void): void;
}

/** Starts `turnlab <args...>` (the data folder is among the args). */
export type TrainerLauncher = (args: string[]) => TrainerProcess;

/** Node: `node bin/turnlab.js ...` as a child process with an IPC channel. */
export function nodeTrainerLauncher(options: { execPath: string; binPath: string; env: NodeJS.ProcessEnv }): TrainerLauncher {
  return (args) => {
    const child = spawn(options.execPath, [options.binPath, ...args], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: options.env });
    const stop: HostMessage = { type: 'stop' };
    return {
      pid: child.pid,
      stdout: child.stdout,
      stderr: child.stderr,
      requestStop: () => {
        // Without its channel (exiting, or started without one) Ctrl-C's signal is all there is.
        if (child.connected) child.send(stop, (error) => error && child.kill('SIGINT'));
        else child.kill('SIGINT');
      },
      onMessage: (listener) =>
        child.on('message', (raw) => {
          const message = asTrainerMessage(raw);
          if (message) listener(message);
        }),
      onExit: (listener) => child.on('close', (code, signal) => listener(code, signal)),
      onError: (listener) => child.on('error', listener),
    };
  };
}
