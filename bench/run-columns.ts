/**
 * The Runs table's columns at 10,000 runs (`npm run bench -- run-columns`): a page of 100 rows
 * with config keys and a metric's last value as columns, sorted by each and filtered by conditions
 * on them, through the store's own `runs.page` (what the server answers the table with). The store is bench/big-store's sweep
 * with 5 iterations a run and no episodes (3 million metric rows); figures are medians of 5, with
 * the process's peak RSS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RunPageQueryDto } from '../preload/contract';
import { openStore } from '../main/store/db';
import { parseRunConditions } from '../preload/run-conditions';
import { generateBigStore } from './big-store';

const RUNS = 10_000;
const REPEATS = 5;

export const USAGE = `run-columns: the Runs table's config and metric columns at 10,000 runs, sorted and filtered, with peak memory (about a minute and a half on 2 cores); takes no arguments`;

export default async function benchRunColumns(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'turnlab-bench-columns-'));
  try {
    const built = generateBigStore(dir, { runs: RUNS, iterations: 5, trainEpisodes: 0, valEpisodes: 0 });
    process.stdout.write(`store: ${built.runs} runs, ${built.metricRows} metric rows, built in ${built.seconds.toFixed(0)} s\n`);
    const store = openStore(dir);
    try {
      const time = (label: string, query: RunPageQueryDto): void => {
        const times: number[] = [];
        for (let i = 0; i < REPEATS; i++) {
          const start = performance.now();
          store.runs.page({ limit: 100, ...query });
          times.push(performance.now() - start);
        }
        times.sort((a, b) => a - b);
        process.stdout.write(`${label.padEnd(64)} ${times[Math.floor(REPEATS / 2)].toFixed(1)} ms\n`);
      };
      const columns = ['algorithm.adv_estimator', 'actor_rollout_ref.actor.optim.lr', 'metric:train/Bandit/success'];
      time('page of 100, sorted by id', {});
      time('page of 100 with 2 config columns and a metric column', { columns });
      time('sorted by config:actor_rollout_ref.actor.optim.lr', { columns, sort: 'config:actor_rollout_ref.actor.optim.lr' });
      time("sorted by a metric's last value (train/Bandit/success)", { columns, sort: 'metric:train/Bandit/success', descending: true });
      // Conditions (`--where`, the Runs view's where field): a config key, a metric's last value, both.
      time('where actor_rollout_ref.actor.optim.lr<3e-4', { columns, where: parseRunConditions('actor_rollout_ref.actor.optim.lr<3e-4') });
      time('where metric:train/Bandit/success>=0.5', { columns, where: parseRunConditions('metric:train/Bandit/success>=0.5') });
      time('where both, sorted by the metric', { columns, where: parseRunConditions('actor_rollout_ref.actor.optim.lr<3e-4 and metric:train/Bandit/success>=0.5'), sort: 'metric:train/Bandit/success' });
      time('where a misspelt key (no run matches; the nearest key named)', { where: parseRunConditions('actor_rollout_ref.actor.optim.lrr<3e-4') });
    } finally {
      store.close();
    }
    process.stdout.write(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchRunColumns();
}
