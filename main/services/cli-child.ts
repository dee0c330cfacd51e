import type { TrainerLauncher } from '../trainer-host/trainer-process';

/**
 * Runs one `turnlab <command> ... --json` in a child process started the way the RunManager
 * starts trainers, so the app itself never loads a model and a crashing command cannot take it
 * down. Resolves with the parsed JSON; rejects with the command's own last error line.
 */
export function runJsonCommand<T>(launch: TrainerLauncher, args: string[], parse: (json: unknown) => T): Promise<T> {
  const command = args.find((arg, i) => !arg.startsWith('-') && args[i - 1] !== '--data-dir') ?? 'command';
  const child = launch(args);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer | string) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer | string) => {
    // Only the tail matters for the error message; the command logs progress lines there.
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    child.onError(reject);
    child.onExit((code, signal) => {
      if (code === 0) {
        try {
          resolve(parse(JSON.parse(stdout)));
        } catch (error) {
          reject(new Error(`cannot read the result of turnlab ${command}: ${(error as Error).message}`));
        }
        return;
      }
      const last = stderr.split('\n').map((l) => l.trim()).filter(Boolean).pop();
      reject(new Error(last?.replace(/^turnlab: /, '') ?? `turnlab ${command} ended with ${signal ? `signal ${signal}` : `exit code ${code}`}`));
    });
  });
}
