/**
 * `npx tsx bench/big-store.ts --runs N [--iterations 100] [--data-dir DIR]`: fills a data folder
 * (by default turnlab-big-store-N in the system's temporary folder, not the current one, where a
 * checkout would gain an untracked folder of hundreds of MB)
 * through the store's own API (runs.create, metrics.insert, episodes.insert) with N finished runs
 * of a bandit seed-and-learning-rate sweep, as configs/bandit.yaml shapes them: about 60 metrics
 * every iteration, single-turn episodes (max_turn 1) with the shipped prompt and reply sizes,
 * 8 training episodes (2 groups of 4) every iteration and 10 validation episodes every fifth,
 * so 1,000 turns a run: 10,000 runs hold 10 million turns. Each run draws from its own seeded
 * generator, so the store is the same for a given seed, and a folder left half-filled (the
 * process killed) is completed from where it stopped. Runs are written `batch` at a time in one
 * transaction. The UI benchmark (`npm run bench -- ui`) builds its stores with it.
 */
import { mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openStore, type Store } from '../main/store/db';
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
  /** Turns of every episode (the bandit's max_turn is 1). */
  turnsPerEpisode?: number;
  /** Runs written per transaction. */
  batch?: number;
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
  ...['vf_loss', 'vf_clipfrac', 'vpred_mean', 'returns/mean', 'returns/max', 'returns/min', 'advantages/mean', 'advantages/max', 'advantages/min', 'values/mean']
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
const BASE_TIME = 1_767_225_600_000; // 2026-01-01
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
    es_manager: { train: { env_groups: 2, group_size: 4, start_seed: seed }, val: { env_groups: 10, group_size: 1, start_seed: 123 } },
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

function episodesOf(rng: Rng, runId: number, iteration: number, split: 'train' | 'val', count: number, skill: number, turnsPerEpisode: number): NewEpisode[] {
  return Array.from({ length: count }, (_, i) => {
    const success = rng.next() < skill;
    const length = turnsPerEpisode;
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

function runsStored(store: Store): number {
  return store.runs.allIds().length;
}

/** Writes run `index` of the sweep with its metrics and episodes; returns what it stored. */
function writeRun(store: Store, index: number, options: Required<Omit<BigStoreOptions, 'progress' | 'runs'>>): { metricRows: number; episodes: number; turns: number } {
  const { iterations, trainEpisodes, valEvery, valEpisodes, seed, turnsPerEpisode } = options;
  const rng = new Rng(seed * 1_000_003 + index);
  const runSeed = index % 5;
  const createdAt = BASE_TIME + index * 600_000;
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
  const skills: number[] = [];
  for (let it = 1; it <= iterations; it++) skills.push(Math.min(0.95, 0.25 + (1 - Math.exp(-rate * it)) * 0.7));
  const wallTime = (it: number): number => createdAt + 2000 + it * 4200;
  // Name by name, as the metrics' primary key (run, name, iteration) orders them: each insert
  // lands beside the one before.
  for (const name of BIG_STORE_METRICS) {
    const fraction = /success|format_ok|share|_rate|valid|effective/.test(name);
    for (let it = 1; it <= iterations; it++) {
      const value = fraction ? Math.min(1, Math.max(0, skills[it - 1] + rng.normal() * 0.05)) : rng.normal() + it / iterations;
      points.push({ runId: run.id, name, iteration: it, value, wallTime: wallTime(it) });
    }
  }
  for (const name of VAL_METRICS) {
    for (let it = valEvery; it <= iterations; it += valEvery) {
      points.push({ runId: run.id, name, iteration: it, value: Math.min(1, skills[it - 1] + rng.normal() * 0.03), wallTime: wallTime(it) });
    }
  }
  for (let it = 1; it <= iterations; it++) {
    episodes.push(...episodesOf(rng, run.id, it, 'train', trainEpisodes, skills[it - 1], turnsPerEpisode));
    if (it % valEvery === 0) episodes.push(...episodesOf(rng, run.id, it, 'val', valEpisodes, skills[it - 1], turnsPerEpisode));
  }
  store.metrics.insert(points);
  store.episodes.insert(episodes);
  store.runs.update(run.id, { finishedAt: wallTime(iterations) });
  return { metricRows: points.length, episodes: episodes.length, turns: episodes.length * turnsPerEpisode };
}

/**
 * Fills `dataDir` up to `runs` runs (a folder already holding some of them gets the rest).
 * Stats count what this call wrote.
 */
export function generateBigStore(dataDir: string, options: BigStoreOptions): BigStoreStats {
  const settings = {
    iterations: options.iterations ?? 100,
    trainEpisodes: options.trainEpisodes ?? 8,
    valEvery: options.valEvery ?? 5,
    valEpisodes: options.valEpisodes ?? 10,
    seed: options.seed ?? 1,
    turnsPerEpisode: options.turnsPerEpisode ?? 1,
    batch: options.batch ?? 10,
  };
  const started = performance.now();
  mkdirSync(dataDir, { recursive: true });
  const store = openStore(dataDir, { create: true });
  const stats = { runs: 0, metricRows: 0, episodes: 0, turns: 0 };
  try {
    for (let index = runsStored(store); index < options.runs; index += settings.batch) {
      const last = Math.min(options.runs, index + settings.batch);
      // One transaction per batch of runs: the repositories' own transactions join it.
      const written = store.transaction(() => Array.from({ length: last - index }, (_, k) => writeRun(store, index + k, settings)));
      for (const one of written) {
        stats.runs += 1;
        stats.metricRows += one.metricRows;
        stats.episodes += one.episodes;
        stats.turns += one.turns;
      }
      options.progress?.(last);
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
  const dataDir = argValue(args, '--data-dir') ?? join(tmpdir(), `turnlab-big-store-${runs}`);
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(iterations) || iterations < 1) {
    process.stderr.write('big-store: --runs and --iterations take whole numbers above 0, e.g. --runs 100 --iterations 100\n');
    process.exit(2);
  }
  process.stdout.write(`writing ${runs} runs into ${dataDir}${argValue(args, '--data-dir') ? '' : ' (--data-dir DIR for another folder)'}\n`);
  const began = performance.now();
  const stats = generateBigStore(dataDir, {
    runs,
    iterations,
    progress: (done) => {
      if (done % Math.max(10, Math.round(runs / 100)) === 0) process.stdout.write(`${done}/${runs} runs, ${((performance.now() - began) / 1000).toFixed(0)} s\n`);
    },
  });
  process.stdout.write(
    `${dataDir}: ${stats.runs} runs, ${stats.metricRows} metric rows, ${stats.episodes} episodes, ${stats.turns} turns, ` +
      `${(stats.databaseBytes / 1e6).toFixed(1)} MB, ${stats.seconds.toFixed(1)} s\n`,
  );
}
