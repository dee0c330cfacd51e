import type { EvaluationDto } from '../../preload/contract';
import type { TrainerLauncher } from '../trainer-host/trainer-process';
import { runJsonCommand } from './cli-child';

/** Evaluating a checkpoint for the workbench: `turnlab eval ckpt:<id> --json` in a child process. */

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

function parseResult(json: unknown): EvaluationResult {
  const parsed = json as Partial<EvaluationResult>;
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
  return runJsonCommand(launch, evaluationArgs(dataDir, request), parseResult);
}
