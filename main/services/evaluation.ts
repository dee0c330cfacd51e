import type { EvaluationDto } from '../../preload/contract';
import type { TrainerLauncher } from '../trainer-host/trainer-process';

/**
 * Evaluating a checkpoint for the workbench: `turnlab eval ckpt:<id> --json` in a child process
 * started the way the RunManager starts trainers, so the app itself never loads a model and a
 * crashing evaluation cannot take it down.
 */

export type EvaluationResult = EvaluationDto;

export interface EvaluationRequest {
  checkpointId: number;
  /** Episodes to play; the run config's validation set when absent. */
  episodes?: number;
}

export function evaluationArgs(dataDir: string, request: EvaluationRequest): string[] {
  const args = ['--data-dir', dataDir, 'eval', `ckpt:${request.checkpointId}`, '--json'];
  if (request.episodes !== undefined) args.push('--episodes', String(request.episodes));
  return args;
}

function parseResult(stdout: string): EvaluationResult {
  const parsed = JSON.parse(stdout) as Partial<EvaluationResult>;
  if (typeof parsed.iteration !== 'number' || typeof parsed.evaluationId !== 'number' || typeof parsed.metrics !== 'object' || parsed.metrics === null) {
    throw new Error('turnlab eval printed JSON without iteration, evaluationId and metrics');
  }
  return parsed as EvaluationResult;
}

/** Runs the evaluation; rejects with the evaluator's own last error line when it fails. */
export function evaluateInChildProcess(
  launch: TrainerLauncher,
  dataDir: string,
  request: EvaluationRequest,
): Promise<EvaluationResult> {
  const child = launch(evaluationArgs(dataDir, request));
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer | string) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer | string) => {
    // Only the tail matters for the error message; the evaluator logs progress lines there.
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    child.onError(reject);
    child.onExit((code, signal) => {
      if (code === 0) {
        try {
          resolve(parseResult(stdout));
        } catch (error) {
          reject(new Error(`cannot read the evaluation result: ${(error as Error).message}`));
        }
        return;
      }
      const last = stderr.split('\n').map((l) => l.trim()).filter(Boolean).pop();
      reject(new Error(last?.replace(/^turnlab: /, '') ?? `turnlab eval ended with ${signal ? `signal ${signal}` : `exit code ${code}`}`));
    });
  });
}
