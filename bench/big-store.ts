/**
 * `npx tsx bench/big-store.ts --runs N [--iterations 100] [--data-dir DIR]`: fills a data folder
 * through the store's own API (runs.create, metrics.insert, episodes.insert) with N finished runs
 * of realistic shape: a bandit-sized config, about 60 metrics every iteration, 16 training
 * episodes of one to three turns each iteration and 8 validation episodes every fifth, a
 * checkpointed seed sweep (runs in groups of 5 seeds). Deterministic for a given seed. The UI
 * benchmark (`npm run bench -- ui`) builds its stores with it.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openStore } from '../main/store/db';
import type { MetricPoint, NewEpisode, NewTurn } from '../main/store/types';
import { Rng } from '../trainer-core/rng';
import type { StoredRunConfig } from '../trainer-core';

export interface BigStoreOptions {
  runs: number;
  iterations?: number;
  trainEpisodes?: number;
  valEvery?: number;
  valEpisodes?: number;
  seed?: number;
  /** Called after each run with how many are stored. */
  progress?: (done: number) => void;
}

export interface BigStoreStats {
  runs: number;
  metricRows: number;
  episodes: number;
  turns: number;
  seconds: number;
  databaseBytes: number;
}

const ENV = 'Bandit';
const PROMPT = 'There are 2 arms, named Phoenix and Dragon. Choose one arm to pull: Phoenix or Dragon.';
const ALGORITHMS = ['grpo', 'gae', 'reinforce_plus_plus', 'rloo', 'gigpo'];
const LRS = [1e-4, 3e-4, 1e-3, 3e-3];

/** About sixty names, as a trained run logs them (actor, critic, rollout, timing, per-env splits). */
export const BIG_STORE_METRICS: string[] = [
  ...['entropy', 'pg_loss', 'pg_clipfrac', 'ppo_kl', 'grad_norm', 'lr', 'kl_loss', 'kl_coef', 'pg_clipfrac_lower', 'loss', 'entropy_coeff', 'ratio_mean', 'ratio_max', 'ratio_min', 'update_seconds']
    .map((n) => `actor/${n}`),
  ...['vf_loss', 'vf_clipfrac', 'vpred_mean', 'returns_mean', 'returns_max', 'returns_min', 'advantages_mean', 'advantages_max', 'advantages_min', 'values_mean']
    .map((n) => `critic/${n}`),
  ...['success', 'reward', 'format_ok', 'response_length', 'num_actions', 'action_is_valid', 'action_is_effective', 'turns']
    .map((n) => `train/${ENV}/${n}`),
  ...['reward/mean', 'reward/max', 'reward/min', 'reward/std', 'response_length/mean', 'response_length/max', 'prompt_length/mean']
    .map((n) => `train/${n}`),
  ...['well_formed_share', 'collapse', 'filtered_groups', 'kept_episodes', 'tokens', 'context_full_rate']
    .map((n) => `rollout/${n}`),
  ...['rollout_seconds', 'update_seconds', 'iteration_seconds', 'tokens_per_second', 'validation_seconds'].map((n) => `timing/${n}`),
  ...['gpu_memory', 'heap_mb', 'rss_mb'].map((n) => `system/${n}`),
];
const VAL_METRICS = [`val/${ENV}/success`, `val/${ENV}/optimal_success`, `val/${ENV}/reward`, `val/${ENV}/format_ok`];

function configOf(index: number, seed: number, iterations: number): StoredRunConfig {
  return {
    trainer: { experiment_name: `sweep-${Math.floor(index / 5)}`, seed, total_training_steps: iterations, test_freq: 5, save_freq: 10, backend: 'wasm' },
    model: { n_layer: 2, n_head: 2, d_model: 64, d_ff: 128, context_length: 256 },
    ppo_mini_batch_size: 16,
    micro_batch_size_per_gpu: 16,
    actor_rollout_ref: { actor: { optim: { lr: LRS[Math.floor(index / 5) % LRS.length] }, entropy_coeff: 0, clip_ratio_low: 0.2, clip_ratio_high: 0.28 }, rollout: { response_length: 8 } },
    algorithm: { adv_estimator: ALGORITHMS[Math.floor(index / 20) % ALGORITHMS.length], gamma: 1, lam: 1, norm_adv_by_std_in_grpo: false },
    agent_proxy: { template: 'compact', enable_think: false, max_turn: 1, max_actions_per_turn: 1 },
    es_manager: { train: { env_groups: 4, group_size: 4, start_seed: seed }, val: { env_groups: 8, start_seed: 123 } },
    warm_start: { mode: 'random-valid', steps: 200, lr: 0.003 },
  };
}

function turnOf(rng: Rng, index: number, last: boolean, success: boolean): NewTurn {
  const arm = rng.next() < 0.5 ? 'Dragon' : 'Phoenix';
  const reward = last && success ? 1 : 0.1 * (rng.next() < 0.5 ? 1 : 0);
  return {
    observation: PROMPT,
    state: { arms: ['Phoenix', 'Dragon'], turn: index },
    response: `<answer>${arm}</answer>`,
    actions: [arm],
    numValidActions: 1,
    reward,
    done: last,
    info: { success: last && success },
    numTokens: 8,
    logprobSum: -rng.next() * 10,
    advantageMean: rng.normal() * 0.1,
  };
}

function episodesOf(rng: Rng, runId: number, iteration: number, split: 'train' | 'val', count: number, skill: number): NewEpisode[] {
  return Array.from({ length: count }, (_, i) => {
    const success = rng.next() < skill;
    const length = 1 + rng.int(3);
    const turns = Array.from({ length }, (_, t) => turnOf(rng, t, t === length - 1, success));
    return {
      runId,
      iteration,
      split,
      envTag: ENV,
      groupId: Math.floor(i / 4),
      envIndex: i,
      seed: 1000 * iteration + Math.floor(i / 4),
      totalReward: turns.reduce((sum, turn) => sum + turn.reward, 0),
      success,
      numActions: turns.length,
      truncated: false,
      filteredOut: split === 'train' && i % 8 === 7,
      turns,
    };
  });
}

export function generateBigStore(dataDir: string, options: BigStoreOptions): BigStoreStats {
  const { runs, iterations = 100, trainEpisodes = 16, valEvery = 5, valEpisodes = 8, seed = 1 } = options;
  const started = performance.now();
  mkdirSync(dataDir, { recursive: true });
  const store = openStore(dataDir, { create: true });
  const stats = { runs: 0, metricRows: 0, episodes: 0, turns: 0 };
  try {
    const rng = new Rng(seed);
    const baseTime = 1_767_225_600_000; // 2026-01-01
    for (let index = 0; index < runs; index++) {
      const runSeed = index % 5;
      const createdAt = baseTime + index * 600_000;
      const run = store.runs.create({
        name: `sweep-${Math.floor(index / 5)}-s${runSeed}`,
        config: configOf(index, runSeed, iterations),
        seed: runSeed,
        envTags: [ENV],
        algorithm: ALGORITHMS[Math.floor(index / 20) % ALGORITHMS.length],
        status: 'completed',
        createdAt,
        startedAt: createdAt + 2000,
        backend: 'wasm',
        device: 'cpu',
        tags: index % 7 === 0 ? ['baseline'] : [],
      });
      const rate = 0.01 + rng.next() * 0.05;
      const points: MetricPoint[] = [];
      const episodes: NewEpisode[] = [];
      for (let it = 1; it <= iterations; it++) {
        const skill = Math.min(0.95, 0.25 + (1 - Math.exp(-rate * it)) * 0.7);
        const wallTime = createdAt + 2000 + it * 4200;
        for (const name of BIG_STORE_METRICS) {
          const value = /success|format_ok|share|_rate|valid|effective/.test(name) ? Math.min(1, Math.max(0, skill + rng.normal() * 0.05)) : rng.normal() + it / iterations;
          points.push({ runId: run.id, name, iteration: it, value, wallTime });
        }
        episodes.push(...episodesOf(rng, run.id, it, 'train', trainEpisodes, skill));
        if (it % valEvery === 0) {
          for (const name of VAL_METRICS) points.push({ runId: run.id, name, iteration: it, value: Math.min(1, skill + rng.normal() * 0.03), wallTime });
          episodes.push(...episodesOf(rng, run.id, it, 'val', valEpisodes, skill));
        }
      }
      store.metrics.insert(points);
      store.episodes.insert(episodes);
      store.runs.update(run.id, { finishedAt: createdAt + 2000 + iterations * 4200 });
      stats.runs += 1;
      stats.metricRows += points.length;
      stats.episodes += episodes.length;
      stats.turns += episodes.reduce((sum, e) => sum + e.turns.length, 0);
      options.progress?.(stats.runs);
    }
  } finally {
    store.close();
  }
  return { ...stats, seconds: (performance.now() - started) / 1000, databaseBytes: statSync(join(dataDir, 'turnlab.sqlite')).size };
}

function argValue(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const runs = Number(argValue(args, '--runs') ?? '100');
  const iterations = Number(argValue(args, '--iterations') ?? '100');
  const dataDir = argValue(args, '--data-dir') ?? join(process.cwd(), `big-store-${runs}`);
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(iterations) || iterations < 1) {
    process.stderr.write('big-store: --runs and --iterations take whole numbers above 0, e.g. --runs 100 --iterations 100\n');
    process.exit(2);
  }
  const stats = generateBigStore(dataDir, {
    runs,
    iterations,
    progress: (done) => {
      if (done % Math.max(1, Math.round(runs / 20)) === 0) process.stdout.write(`${done}/${runs} runs\n`);
    },
  });
  process.stdout.write(
    `${dataDir}: ${stats.runs} runs, ${stats.metricRows} metric rows, ${stats.episodes} episodes, ${stats.turns} turns, ` +
      `${(stats.databaseBytes / 1e6).toFixed(1)} MB, ${stats.seconds.toFixed(1)} s\n`,
  );
}
