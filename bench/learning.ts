/**
 * `npm run bench -- learning [config...] [--seeds 0,1,2] [--estimators grpo,gigpo,bi_level_gae]
 * [--episodes 1024] [--data-dir DIR] [--set k=v]...`: trains each named config
 * (`configs/<name>.yaml`; default bandit) on each seed (default 0-4), with each estimator if
 * given (default: the config's own), as `turnlab train` does, into a TurnLab data folder (default
 * bench/results/learning), then evaluates the final checkpoint on 1024 held-out episodes sampled
 * at temperature 0.5, as RAGEN evaluates, stores that evaluation beside the run and prints a
 * table: config, estimator, seed, the warm start alone (its policy kept as iter-0 by
 * `warm_start.save_checkpoint`, on the same episodes), after RL, the gain with its standard error
 * (paired over the episodes, bench/lib/success-gain.ts), optimal success, wall time; then the
 * mean over seeds of each config and estimator, side by side.
 * The evaluation seeds start far past every train and validation seed, so no run has seen them.
 * Each row's `turnlab eval` command plays the same checkpoint on the same episodes again.
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { recordEvaluation } from '../main/services/stored-evaluation';
import { trainFromConfigFile } from '../main/services/training';
import { openStore, type Store } from '../main/store/db';
import type { CheckpointRecord } from '../main/store/types';
import { releaseBackend } from '../trainer-core/backend';
import { estimatorNames } from '../trainer-core/algo/estimator-registry';
import { loadRunConfig } from '../trainer-core/config';
import { evaluateCheckpoint, type EvaluationResult } from '../trainer-core/train/evaluate';
import { formatGain, meanSuccessGain, pairedSuccessGain, type SuccessGain } from './lib/success-gain';

/** 1024 episodes put the standard error of a success near 0.8 at about 0.012. */
export const EVALUATION_EPISODES = 1024;
export const EVALUATION_SEED = 100_000;
export const EVALUATION_OVERRIDES = ['actor_rollout_ref.rollout.val_kwargs.temperature=0.5', 'actor_rollout_ref.rollout.val_kwargs.do_sample=true'];
const DEFAULT_DATA_DIR = fileURLToPath(new URL('./results/learning', import.meta.url));

/** `--estimators` names: every adv_estimator, and PPO with turn-level GAE. */
export const BENCH_ESTIMATORS: readonly string[] = [...estimatorNames(), 'bi_level_gae'];

export interface LearningArgs {
  configs: string[];
  seeds: number[];
  /** Empty: each config's own estimator. */
  estimators: string[];
  episodes: number;
  dataDir: string;
  /** `--set key=value` overrides for every run, as `turnlab train --set`. */
  overrides: string[];
}

/** The overrides that pick an estimator of `--estimators`. */
export function estimatorOverrides(estimator: string): string[] {
  if (estimator === 'bi_level_gae') return ['algorithm.adv_estimator=gae', 'algorithm.bi_level_gae=true'];
  return [`algorithm.adv_estimator=${estimator}`, 'algorithm.bi_level_gae=false'];
}

export function parseLearningArgs(args: string[]): LearningArgs {
  const configs: string[] = [];
  let seeds = [0, 1, 2, 3, 4];
  let estimators: string[] = [];
  let episodes = EVALUATION_EPISODES;
  let dataDir = DEFAULT_DATA_DIR;
  const overrides: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--seeds') {
      const text = args[++i] ?? '';
      seeds = text.split(',').map(Number);
      if (!text || seeds.some((s) => !Number.isInteger(s) || s < 0)) throw new Error(`--seeds wants non-negative integers separated by commas, e.g. --seeds 0,1,2 (got "${text}")`);
    } else if (args[i] === '--estimators') {
      const text = args[++i] ?? '';
      estimators = text.split(',');
      const unknown = estimators.find((e) => !(BENCH_ESTIMATORS as readonly string[]).includes(e));
      if (!text || unknown !== undefined) throw new Error(`--estimators wants names from ${BENCH_ESTIMATORS.join(', ')} separated by commas, e.g. --estimators grpo,gigpo,bi_level_gae (got "${unknown ?? text}")`);
    } else if (args[i] === '--episodes') {
      const text = args[++i] ?? '';
      episodes = Number(text);
      if (!/^\d+$/.test(text) || episodes < 2) throw new Error(`--episodes wants a whole number of held-out episodes of at least 2, e.g. --episodes 1024 (got "${text}")`);
    } else if (args[i] === '--data-dir') {
      const text = args[++i];
      if (!text) throw new Error('--data-dir wants a folder, e.g. --data-dir /tmp/turnlab-learning');
      dataDir = resolve(text);
    } else if (args[i] === '--set') {
      const text = args[++i];
      if (!text?.includes('=')) throw new Error(`--set wants key=value, e.g. --set model.d_ff=512 (got "${text ?? ''}")`);
      overrides.push(text);
    } else configs.push(args[i]);
  }
  return { configs: configs.length ? configs : ['bandit'], seeds, estimators, episodes, dataDir, overrides };
}

/** The mean over env tags of the `val/<tag>/<suffix>` figures, or '-' when there are none. */
export function meanFigure(metrics: Record<string, number>, suffix: string): string {
  const values = Object.entries(metrics)
    .filter(([k]) => k.startsWith('val/') && k.endsWith(`/${suffix}`))
    .map(([, v]) => v);
  return values.length ? (values.reduce((a, b) => a + b, 0) / values.length).toFixed(3) : '-';
}

/** The command that plays a run's final checkpoint on the bench's evaluation episodes again. */
export function evalCommand(dataDir: string, runId: number, episodes = EVALUATION_EPISODES): string {
  const sets = EVALUATION_OVERRIDES.map((o) => `--set ${o}`).join(' ');
  return `node bin/turnlab.js --data-dir ${dataDir} eval ${runId} --episodes ${episodes} --seed ${EVALUATION_SEED} ${sets}`;
}

/** Plays a checkpoint on the bench's held-out episodes and stores that evaluation beside it. */
async function evaluateHeldOut(store: Store, checkpoint: CheckpointRecord, episodes: number) {
  const result = await evaluateCheckpoint(resolve(store.dataDir, checkpoint.path), {
    episodes,
    seed: EVALUATION_SEED,
    overrides: EVALUATION_OVERRIDES,
  });
  recordEvaluation(store, checkpoint, result, { overrides: EVALUATION_OVERRIDES, startSeed: EVALUATION_SEED });
  return result;
}

/** Success of each episode played, in the order of their start states. */
function successes(result: EvaluationResult): boolean[] {
  return result.episodeReports.map((e) => e.success);
}

export default async function benchLearning(args: string[] = process.argv.includes('learning') ? process.argv.slice(process.argv.indexOf('learning') + 1) : []): Promise<void> {
  const { configs, seeds, estimators, episodes, dataDir, overrides } = parseLearningArgs(args);
  const store = openStore(dataDir, { create: true });
  const rows: string[] = [
    '| config | estimator | seed | warm start alone | after RL | gain ± s.e. | optimal success | wall time |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const summary: string[] = ['| config | estimator | seeds | warm start alone | after RL | gain ± s.e. (over seeds) |', '| --- | --- | --- | --- | --- | --- |'];
  const commands: string[] = [];
  try {
    for (const name of configs) {
      const path = fileURLToPath(new URL(`../configs/${name}.yaml`, import.meta.url));
      for (const estimator of estimators.length ? estimators : [null]) {
        const picked = estimator === null ? [] : estimatorOverrides(estimator);
        const label = estimator ?? loadRunConfig(path, overrides).algorithm.adv_estimator;
        const gains: SuccessGain[] = [];
        for (const seed of seeds) {
          const start = performance.now();
          const runName = estimator === null ? `${name}-s${seed}` : `${name}-${estimator}-s${seed}`;
          const { run } = await trainFromConfigFile(store, path, {
            overrides: [...overrides, ...picked, `trainer.seed=${seed}`],
            name: runName,
            tags: ['bench-learning'],
            log: (line) => (line.startsWith('warning') ? console.log(`${runName}: ${line}`) : undefined),
          });
          const checkpoint = store.checkpoints.latest(run.id);
          if (!checkpoint) throw new Error(`${runName} (run ${run.id}) saved no checkpoint`);
          const result = await evaluateHeldOut(store, checkpoint, episodes);
          const seconds = (performance.now() - start) / 1000;
          // With warm_start.save_checkpoint the warm start's own policy is iter-0: what RL added shows.
          const warm = store.checkpoints.listByRun(run.id).find((c) => c.iteration === 0 && c.id !== checkpoint.id);
          let warmSuccess = '-';
          let gainText = '-';
          if (warm) {
            const warmResult = await evaluateHeldOut(store, warm, episodes);
            warmSuccess = meanFigure(warmResult.metrics, 'success');
            const gain = pairedSuccessGain(successes(warmResult), successes(result));
            gains.push(gain);
            gainText = formatGain(gain);
          }
          const row = `| ${name} | ${label} | ${seed} | ${warmSuccess} | ${meanFigure(result.metrics, 'success')} | ${gainText} | ${meanFigure(result.metrics, 'optimal_success')} | ${seconds.toFixed(0)} s |`;
          console.log(`${row}   run ${run.id}, checkpoint of iteration ${result.iteration}`);
          rows.push(row);
          commands.push(`${runName}: ${evalCommand(dataDir, run.id, episodes)}`);
        }
        if (gains.length > 0) {
          const m = meanSuccessGain(gains);
          summary.push(`| ${name} | ${label} | ${gains.length} | ${m.warm.toFixed(3)} | ${m.after.toFixed(3)} | ${formatGain(m)} |`);
        }
      }
    }
  } finally {
    store.close();
  }
  console.log(`\nfinal policies on ${episodes} held-out episodes (seeds from ${EVALUATION_SEED}) at temperature 0.5:\n${rows.join('\n')}`);
  if (summary.length > 2) console.log(`\nmean over seeds (the gain's standard error is the spread of the seeds' gains; one seed: its episodes'):\n${summary.join('\n')}`);
  console.log(`\nruns, checkpoints and evaluations kept in ${dataDir} (node bin/turnlab.js --data-dir ${dataDir} serve shows them); to play a final policy again:\n${commands.join('\n')}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchLearning(process.argv.slice(2));
  await releaseBackend();
}
