import { spawn } from 'node:child_process';

/**
 * A `turnlab` command running in a process of its own (training, evaluation). The app runs it in
 * Electron's utilityProcess, `turnlab serve` and tests as a Node child process; the run manager
 * only sees this interface.
 */
export interface TrainerProcess {
  readonly pid: number | undefined;
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  /** Asks for a graceful stop: the trainer ends its iteration, saves a checkpoint and exits. */
  requestStop(): void;
  /** Fires once, after the process has exited and its output has been read. */
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  onError(listener: (error: Error) => void): void;
}

/** Starts `turnlab <args...>` (the data folder is among the args). */
export type TrainerLauncher = (args: string[]) => TrainerProcess;

/** Node: `node bin/turnlab.js ...` as a child process; stop is SIGINT, as Ctrl-C. */
export function nodeTrainerLauncher(options: { execPath: string; binPath: string; env: NodeJS.ProcessEnv }): TrainerLauncher {
  return (args) => {
    const child = spawn(options.execPath, [options.binPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: options.env });
    return {
      pid: child.pid,
      stdout: child.stdout,
      stderr: child.stderr,
      requestStop: () => child.kill('SIGINT'),
      onExit: (listener) => child.on('close', (code, signal) => listener(code, signal)),
      onError: (listener) => child.on('error', listener),
    };
  };
}
