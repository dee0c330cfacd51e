// The table of `turnlab eval --where` (main/cli/eval-runs.ts): a binomial standard error beside
// each run's success, and the sample standard deviation over the runs in the last row.
import { describe, expect, it } from 'vitest';
import { evaluationTable, type RunEvaluation } from '../../main/cli/eval-runs';
import type { CheckpointRecord } from '../../main/store/types';
import { formatMeanStd, meanStd } from '../../main/cli/mean-std';

function evaluation(runId: number, seed: number, metrics: Record<string, number>): RunEvaluation {
  return { runId, name: `g-s${seed}`, seed, checkpoint: { id: runId, iteration: 10 } as CheckpointRecord, evaluationId: runId, episodes: 100, metrics };
}

describe('evaluationTable', () => {
  it('gives each success its binomial error and the runs their mean ± std, per environment', () => {
    const table = evaluationTable([
      evaluation(1, 0, { 'val/Sokoban/success': 0.8, 'val/Sokoban/num_episodes': 100, 'val/Bandit/success': 1, 'val/Sokoban/reward': 3 }),
      evaluation(2, 1, { 'val/Sokoban/success': 0.6, 'val/Sokoban/num_episodes': 100 }),
    ]);
    expect(table.head).toEqual(['run', 'seed', 'iteration', 'episodes', 'Bandit success', 'Sokoban success']);
    expect(table.rows).toEqual([
      ['1 (g-s0)', '0', '10', '100', '1.000 ± 0.000', '0.800 ± 0.040'],
      ['2 (g-s1)', '1', '10', '100', '-', '0.600 ± 0.049'],
      // std of 0.8 and 0.6 with n - 1: 0.1414.
      ['mean ± std of 2 runs', '', '', '', '1.000 (one run)', '0.700 ± 0.141'],
    ]);
  });

  it('has no summary row for one run', () => {
    expect(evaluationTable([evaluation(1, 0, { 'val/Bandit/success': 0.5 })]).rows).toEqual([['1 (g-s0)', '0', '10', '100', '0.500 ± 0.050']]);
  });

  it('writes one value without a spread it does not have, and none as -', () => {
    expect([formatMeanStd(meanStd([0.5])), formatMeanStd(meanStd([0.5, 0.7])), formatMeanStd(meanStd([null]))]).toEqual(['0.500 (one run)', '0.600 ± 0.141', '-']);
  });
});
