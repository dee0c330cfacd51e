/**
 * `npm run bench -- learning [config...] [--seeds 0,1,2]`: trains each named config
 * (`configs/<name>.yaml`; default bandit) on each seed (default 0-4), then evaluates the final
 * policy on 256 held-out episodes sampled at temperature 0.5, as RAGEN evaluates, and prints a
 * table: config, seed, success, optimal success, wall time. The evaluation seeds start far past
 * every train and validation seed, so no run has seen them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { releaseBackend } from '../trainer-core/backend';
import { loadRunConfig } from '../trainer-core/config';
import { evaluateCheckpoint } from '../trainer-core/train/evaluate';
import type { CheckpointReport, TrainingSink } from '../trainer-core/train/sink';
import { train } from '../trainer-core/train/trainer';

const EVALUATION_EPISODES = 256;
const EVALUATION_SEED = 100_000;
const EVALUATION_OVERRIDES = ['actor_rollout_ref.rollout.val_kwargs.temperature=0.5', 'actor_rollout_ref.rollout.val_kwargs.do_sample=true'];

/** Keeps the last checkpoint; the bench prints only its table (and collapse warnings). */
class LastCheckpoint implements TrainingSink {
  last: string | null = null;
  runStarted(): void {}
  iteration(): void {}
  checkpoint(report: CheckpointReport): void {
    this.last = report.path;
  }
  runEnded(): void {}
}

export function parseLearningArgs(args: string[]): { configs: string[]; seeds: number[] } {
  const configs: string[] = [];
  let seeds = [0, 1, 2, 3, 4];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--seeds') {
      const text = args[++i] ?? '';
      seeds = text.split(',').map(Number);
      if (!text || seeds.some((s) => !Number.isInteger(s) || s < 0)) throw new Error(`--seeds wants non-negative integers separated by commas, e.g. --seeds 0,1,2 (got "${text}")`);
    } else configs.push(args[i]);
  }
  return { configs: configs.length ? configs : ['bandit'], seeds };
}

export default async function benchLearning(args: string[] = process.argv.includes('learning') ? process.argv.slice(process.argv.indexOf('learning') + 1) : []): Promise<void> {
  const { configs, seeds } = parseLearningArgs(args);
  const rows: string[] = ['| config | seed | success | optimal success | wall time |', '| --- | --- | --- | --- | --- |'];
  for (const name of configs) {
    const path = fileURLToPath(new URL(`../configs/${name}.yaml`, import.meta.url));
    for (const seed of seeds) {
      const config = loadRunConfig(path, [`trainer.seed=${seed}`]);
      const dir = mkdtempSync(join(tmpdir(), `turnlab-bench-learning-${name}-`));
      const sink = new LastCheckpoint();
      const start = performance.now();
      try {
        await train({ config, sink, checkpointDir: dir, log: (line) => (line.startsWith('warning') ? console.log(`${name} seed ${seed}: ${line}`) : undefined) });
        if (!sink.last) throw new Error(`${name} seed ${seed} saved no checkpoint`);
        const result = await evaluateCheckpoint(sink.last, { episodes: EVALUATION_EPISODES, seed: EVALUATION_SEED, overrides: EVALUATION_OVERRIDES });
        const seconds = (performance.now() - start) / 1000;
        const figure = (suffix: string) => {
          const values = Object.entries(result.metrics).filter(([k]) => k.startsWith('val/') && k.endsWith(`/${suffix}`)).map(([, v]) => v);
          return values.length ? (values.reduce((a, b) => a + b, 0) / values.length).toFixed(3) : '-';
        };
        const row = `| ${name} | ${seed} | ${figure('success')} | ${figure('optimal_success')} | ${seconds.toFixed(0)} s |`;
        console.log(row);
        rows.push(row);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  console.log(`\nfinal policies on ${EVALUATION_EPISODES} held-out episodes (seeds from ${EVALUATION_SEED}) at temperature 0.5:\n${rows.join('\n')}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchLearning(process.argv.slice(2));
  await releaseBackend();
}
