/**
 * An error the user can fix (unknown run id, bad flag, missing data folder). The CLI prints its
 * message as one line on stderr and exits with code 2; anything else is a bug and exits 1.
 */
export class UserError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

/** The shell's code for a command ended by Ctrl-C (128 + SIGINT). */
export const INTERRUPTED_EXIT_CODE = 130;
let interrupted = false;

/**
 * A command that stopped cleanly on Ctrl-C (a run stopped with its checkpoint) still did not do
 * what was asked, so `turnlab train ... && turnlab eval ...` must not go on: the command prints
 * as usual and the CLI exits 130, as a process killed by the signal would.
 */
export function noteInterrupted(): void {
  interrupted = true;
}

export function wasInterrupted(): boolean {
  return interrupted;
}

/** A new command starts uninterrupted (tests run several through one process). */
export function clearInterrupted(): void {
  interrupted = false;
}
