import { spawn } from 'node:child_process';
import { shellQuote } from '../shell-quote';

/**
 * Where the scheduler's tools run: this machine, or the login node over `ssh HOST` (the user's
 * own ssh config and keys; BatchMode so a password prompt fails instead of hanging).
 */
export interface Shell {
  /** `ssh HOST`, or null for this machine. */
  readonly host: string | null;
  run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
}

export { shellQuote };

export function createShell(host: string | null, env: NodeJS.ProcessEnv = process.env): Shell {
  return {
    host,
    run(argv) {
      const [command, args] = host === null ? [argv[0], argv.slice(1)] : ['ssh', ['-o', 'BatchMode=yes', host, '--', argv.map(shellQuote).join(' ')]];
      return new Promise((resolve) => {
        const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', (error) => resolve({ code: 127, stdout, stderr: `${command}: ${error.message}` }));
        child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
      });
    },
  };
}
