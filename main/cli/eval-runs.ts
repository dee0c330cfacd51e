// `turnlab eval --where COND`: the latest checkpoint of each run a condition selects (a seed
// group's, `tag=seeds:sokoban`), played on the same validation episodes, each stored as an
// evaluation, then one table: each run's success per environment with its standard error, and
// the runs' mean ± standard deviation, the figure a seed group is trained for.
import { resolve } from 'node:path';
import type { Store } from '../store/db';
import type { CheckpointRecord } from '../store/types';
import { renderTable } from './format';
import { formatMeanStd, meanStd } from './mean-std';
import { evaluationSeedNote } from '../../trainer-core';

export interface RunEvaluation {
  runId: number;
  name: string;
  seed: number;
  checkpoint: CheckpointRecord;
  evaluationId: number;
  episodes: number;
  metrics: Record<string, number>;
}

const SUCCESS = /^val\/(.+)\/success$/;

/** `p ± se` of a success rate over `n` episodes: the binomial standard error. */
function withError(p: number, n: number): string {
  return `${p.toFixed(3)} ± ${Math.sqrt((p * (1 - p)) / n).toFixed(3)}`;
}

/** The table's rows: one a run, then the mean ± standard deviation over the runs (n - 1). */
export function evaluationTable(results: readonly RunEvaluation[]): { head: string[]; rows: string[][] } {
  const envs = [...new Set(results.flatMap((r) => Object.keys(r.metrics).flatMap((name) => SUCCESS.exec(name)?.[1] ?? [])))].sort();
  const head = ['run', 'seed', 'iteration', 'episodes', ...envs.map((env) => `${env} success`)];
  const rows = results.map((r) => [
    `${r.runId} (${r.name})`,
    String(r.seed),
    String(r.checkpoint.iteration),
    String(r.episodes),
    ...envs.map((env) => {
      const p = r.metrics[`val/${env}/success`];
      return p === undefined ? '-' : withError(p, r.metrics[`val/${env}/num_episodes`] ?? r.episodes);
    }),
  ]);
  if (results.length > 1) {
    rows.push([
      `mean ± std of ${results.length} runs`,
      '',
      '',
      '',
      ...envs.map((env) => {
        const stats = meanStd(results.map((r) => r.metrics[`val/${env}/success`]));
        return formatMeanStd(stats);
      }),
    ]);
  }
  return { head, rows };
}

export interface EvaluateRunsOptions {
  episodes?: number;
  seed?: number;
  overrides: string[];
  log: (line: string) => void;
}

/**
 * Evaluates the latest checkpoint of each run, one after the other in this process, each stored
 * as an evaluation. Runs without a checkpoint are named on the log and left out.
 */
export async function evaluateRuns(store: Store, runIds: readonly number[], options: EvaluateRunsOptions): Promise<RunEvaluation[]> {
  const { evaluateCheckpoint } = await import('../../trainer-core/compute');
  const { recordEvaluation } = await import('../services/stored-evaluation');
  const results: RunEvaluation[] = [];
  for (const runId of runIds) {
    const run = store.runs.get(runId)!;
    const checkpoint = store.checkpoints.latest(runId);
    if (!checkpoint || checkpoint.warmStartStep !== null) {
      const why = checkpoint ? `only a warm-start checkpoint (step ${checkpoint.warmStartStep}), which resumes the run and is no policy to evaluate` : 'no checkpoint';
      options.log(`run ${run.id} (${run.name}) has ${why}: left out`);
      continue;
    }
    const result = await evaluateCheckpoint(resolve(store.dataDir, checkpoint.path), { episodes: options.episodes, seed: options.seed, overrides: options.overrides, log: options.log });
    const stored = recordEvaluation(store, checkpoint, result, { overrides: options.overrides, startSeed: options.seed ?? null });
    options.log(`run ${run.id} (${run.name}), checkpoint ${checkpoint.id} (iteration ${result.iteration}): ${result.episodes} episodes, stored as evaluation ${stored.id}`);
    const seedNote = evaluationSeedNote(result.config, result.iteration);
    if (seedNote !== null) options.log(seedNote);
    results.push({ runId, name: run.name, seed: run.seed, checkpoint, evaluationId: stored.id, episodes: result.episodes, metrics: result.metrics });
  }
  return results;
}

export function renderEvaluationTable(results: readonly RunEvaluation[]): string {
  const { head, rows } = evaluationTable(results);
  return renderTable(head, rows);
}
