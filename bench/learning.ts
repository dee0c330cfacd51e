/**
 * `npm run bench -- learning [config...] [--seeds 0,1,2] [--data-dir DIR] [--set k=v]...`:
 * trains each named config (`configs/<name>.yaml`; default bandit) on each seed (default 0-4), as
 * `turnlab train` does, into a TurnLab data folder (default bench/results/learning), then evaluates the final
 * checkpoint on 256 held-out episodes sampled at temperature 0.5, as RAGEN evaluates, stores that
 * evaluation beside the run and prints a table: config, seed, success, the warm start alone (its
 * policy kept as iter-0 by `warm_start.save_checkpoint`, on the same episodes), optimal success,
 * wall time.
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
import { evaluateCheckpoint } from '../trainer-core/train/evaluate';

export const EVALUATION_EPISODES = 256;
export const EVALUATION_SEED = 100_000;
export const EVALUATION_OVERRIDES = ['actor_rollout_ref.rollout.val_kwargs.temperature=0.5', 'actor_rollout_ref.rollout.val_kwargs.do_sample=true'];
const DEFAULT_DATA_DIR = fileURLToPath(new URL('./results/learning', import.meta.url));

export interface LearningArgs {
  configs: string[];
  seeds: number[];
  dataDir: string;
  /** `--set key=value` overrides for every run, as `turnlab train --set`. */
  overrides: string[];
}

export function parseLearningArgs(args: string[]): LearningArgs {
  const configs: string[] = [];
  let seeds = [0, 1, 2, 3, 4];
  let dataDir = DEFAULT_DATA_DIR;
  const overrides: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--seeds') {
      const text = args[++i] ?? '';
      seeds = text.split(',').map(Number);
      if (!text || seeds.some((s) => !Number.isInteger(s) || s < 0)) throw new Error(`--seeds wants non-negative integers separated by commas, e.g. --seeds 0,1,2 (got "${text}")`);
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
  return { configs: configs.length ? configs : ['bandit'], seeds, dataDir, overrides };
}

/** The mean over env tags of the `val/<tag>/<suffix>` figures, or '-' when there are none. */
export function meanFigure(metrics: Record<string, number>, suffix: string): string {
  const values = Object.entries(metrics)
    .filter(([k]) => k.startsWith('val/') && k.endsWith(`/${suffix}`))
    .map(([, v]) => v);
  return values.length ? (values.reduce((a, b) => a + b, 0) / values.length).toFixed(3) : '-';
}

/** The command that plays a run's final checkpoint on the bench's evaluation episodes again. */
export function evalCommand(dataDir: string, runId: number): string {
  const sets = EVALUATION_OVERRIDES.map((o) => `--set ${o}`).join(' ');
  return `node bin/turnlab.js --data-dir ${dataDir} eval ${runId} --episodes ${EVALUATION_EPISODES} --seed ${EVALUATION_SEED} ${sets}`;
}

/** Plays a checkpoint on the bench's held-out episodes and stores that evaluation beside it. */
async function evaluateHeldOut(store: Store, checkpoint: CheckpointRecord) {
  const result = await evaluateCheckpoint(resolve(store.dataDir, checkpoint.path), {
    episodes: EVALUATION_EPISODES,
    seed: EVALUATION_SEED,
    overrides: EVALUATION_OVERRIDES,
  });
  recordEvaluation(store, checkpoint, result, { overrides: EVALUATION_OVERRIDES, startSeed: EVALUATION_SEED });
  return result;
}

export default async function benchLearning(args: string[] = process.argv.includes('learning') ? process.argv.slice(process.argv.indexOf('learning') + 1) : []): Promise<void> {
  const { configs, seeds, dataDir, overrides } = parseLearningArgs(args);
  const store = openStore(dataDir, { create: true });
  const rows: string[] = ['| config | seed | success | warm start alone | optimal success | wall time |', '| --- | --- | --- | --- | --- | --- |'];
  const commands: string[] = [];
  try {
    for (const name of configs) {
      const path = fileURLToPath(new URL(`../configs/${name}.yaml`, import.meta.url));
      for (const seed of seeds) {
        const start = performance.now();
        const { run } = await trainFromConfigFile(store, path, {
          overrides: [...overrides, `trainer.seed=${seed}`],
          name: `${name}-s${seed}`,
          tags: ['bench-learning'],
          log: (line) => (line.startsWith('warning') ? console.log(`${name} seed ${seed}: ${line}`) : undefined),
        });
        const checkpoint = store.checkpoints.latest(run.id);
        if (!checkpoint) throw new Error(`${name} seed ${seed} (run ${run.id}) saved no checkpoint`);
        const result = await evaluateHeldOut(store, checkpoint);
        const seconds = (performance.now() - start) / 1000;
        // With warm_start.save_checkpoint the warm start's own policy is iter-0: what RL added shows.
        const warm = store.checkpoints.listByRun(run.id).find((c) => c.iteration === 0 && c.id !== checkpoint.id);
        const warmSuccess = warm ? meanFigure((await evaluateHeldOut(store, warm)).metrics, 'success') : '-';
        const row = `| ${name} | ${seed} | ${meanFigure(result.metrics, 'success')} | ${warmSuccess} | ${meanFigure(result.metrics, 'optimal_success')} | ${seconds.toFixed(0)} s |`;
        console.log(`${row}   run ${run.id}, checkpoint of iteration ${result.iteration}`);
        rows.push(row);
        commands.push(`${name} seed ${seed}: ${evalCommand(dataDir, run.id)}`);
      }
    }
  } finally {
    store.close();
  }
  console.log(`\nfinal policies on ${EVALUATION_EPISODES} held-out episodes (seeds from ${EVALUATION_SEED}) at temperature 0.5:\n${rows.join('\n')}`);
  console.log(`\nruns, checkpoints and evaluations kept in ${dataDir} (node bin/turnlab.js --data-dir ${dataDir} serve shows them); to play a final policy again:\n${commands.join('\n')}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchLearning(process.argv.slice(2));
  await releaseBackend();
}
