import { describe, expect, it } from 'vitest';
import type { StoredEvaluationDto } from '../../preload/contract';
import { evaluationMetricOrder, evaluationsByCheckpoint } from '../../renderer/src/run/evaluations';

const evaluation = (id: number, checkpointId: number | null, iteration: number, createdAt: number): StoredEvaluationDto => ({
  id, runId: 1, checkpointId, iteration, createdAt, overrides: [], numEpisodes: 4, startSeed: null, backend: 'wasm', device: 'cpu', metrics: {},
});

describe('evaluations in the Checkpoints view', () => {
  it('puts each evaluation under its checkpoint, newest first, and keeps those of deleted checkpoints apart', () => {
    const { byCheckpoint, orphaned } = evaluationsByCheckpoint([
      evaluation(1, 10, 5, 100), evaluation(2, 11, 10, 200), evaluation(3, 10, 5, 300), evaluation(4, null, 15, 50), evaluation(5, null, 2, 60),
    ]);
    expect(byCheckpoint.get(10)!.map((e) => e.id)).toEqual([3, 1]);
    expect(byCheckpoint.get(11)!.map((e) => e.id)).toEqual([2]);
    expect(orphaned.map((e) => e.id)).toEqual([5, 4]);
  });

  it('shows success rates first, the optimum beside them', () => {
    expect(evaluationMetricOrder({ 'val/L/reward': 1, 'val/L/optimal_success': 1, 'val/L/success': 0.5, 'val/A/success': 0 })).toEqual([
      'val/A/success', 'val/L/success', 'val/L/optimal_success', 'val/L/reward',
    ]);
  });
});
