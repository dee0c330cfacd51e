// Stored evaluations as the Checkpoints view lists them: under their checkpoint, the success
// rates first.
import type { StoredEvaluationDto } from '../../../preload/contract';

export interface CheckpointEvaluations {
  /** Checkpoint id -> its evaluations, newest first. */
  byCheckpoint: Map<number, StoredEvaluationDto[]>;
  /** Evaluations whose checkpoint was deleted or pruned, by iteration. */
  orphaned: StoredEvaluationDto[];
}

export function evaluationsByCheckpoint(evaluations: readonly StoredEvaluationDto[]): CheckpointEvaluations {
  const byCheckpoint = new Map<number, StoredEvaluationDto[]>();
  const orphaned: StoredEvaluationDto[] = [];
  const newestFirst = [...evaluations].sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
  for (const evaluation of newestFirst) {
    if (evaluation.checkpointId === null) orphaned.push(evaluation);
    else byCheckpoint.set(evaluation.checkpointId, [...(byCheckpoint.get(evaluation.checkpointId) ?? []), evaluation]);
  }
  orphaned.sort((a, b) => a.iteration - b.iteration);
  return { byCheckpoint, orphaned };
}

/** The metrics shown on an evaluation's line: success rates (the solver's optimum beside them), then the rest. */
export function evaluationMetricOrder(metrics: Record<string, number | null>): string[] {
  const rank = (name: string) => (name.endsWith('/success') ? 0 : name.endsWith('/optimal_success') ? 1 : 2);
  return Object.keys(metrics).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}
