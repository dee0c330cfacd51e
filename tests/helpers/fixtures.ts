// Temp data folders filled with realistic runs, through the repository layer. Shared by the
// store, CLI, service and API tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from '../../trainer-core/rng';
import { openStore, type Store } from '../../main/store/db';
import type { CheckpointRecord, MetricPoint, NewEpisode, NewTurn, RunRecord, RunStatus } from '../../main/store/types';

export interface TempDir {
  dir: string;
  cleanup(): void;
}

/** A fresh empty folder under the OS temp folder. */
export function makeTempDir(prefix = 'turnlab-test-'): TempDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Text that breaks naive CSV and JSON writers: quotes, commas, line breaks, non-ASCII. */
export const TRICKY_TEXTS = [
  'She said "go left", then "up".',
  'a,b,,c,',
  'line one\nline two\r\nline three\rend',
  '<think>Hole at (1,2); goal → (3,3) ✓</think><answer>Right || Down</answer>',
  '日本語のテキスト, émigré naïve café — 🧊🥅',
  '"',
  '""',
  ' leading and trailing spaces ',
  '=SUM(A1:A3)',
  '',
  'tab\tseparated\tvalues',
  'line\u2028and paragraph\u2029separators, NEL\u0085',
];

export interface FixtureOptions {
  seed?: number;
  iterations?: number;
  groups?: number;
  groupSize?: number;
  maxTurns?: number;
  valEvery?: number;
  valEpisodes?: number;
  checkpointEvery?: number;
}

export interface SeededRun {
  run: RunRecord;
  metricCount: number;
  episodeIds: number[];
  turnCount: number;
  checkpoints: CheckpointRecord[];
}

interface RunPlan {
  name: string;
  env: string;
  algorithm: string;
  status: RunStatus;
  error?: string;
  parent?: 'first';
}

const PLANS: RunPlan[] = [
  { name: 'frozenlake-grpo', env: 'frozenlake', algorithm: 'grpo', status: 'completed' },
  {
    name: 'sokoban-ppo',
    env: 'sokoban',
    algorithm: 'ppo',
    status: 'failed',
    error: 'Error: loss became NaN at iteration 4\n  at update (trainer.ts:88)',
  },
  { name: 'frozenlake-grpo-fork', env: 'frozenlake', algorithm: 'grpo', status: 'interrupted', parent: 'first' },
];

const ACTIONS: Record<string, string[]> = {
  frozenlake: ['Left', 'Down', 'Right', 'Up'],
  sokoban: ['Up', 'Down', 'Left', 'Right'],
};

function grid(rng: Rng, size: number, symbols: string): string {
  const rows: string[] = [];
  for (let r = 0; r < size; r++) {
    let row = '';
    for (let c = 0; c < size; c++) row += symbols[rng.int(symbols.length)];
    rows.push(row);
  }
  return rows.join('\n');
}

function makeTurn(rng: Rng, env: string, index: number, last: boolean, success: boolean): NewTurn {
  const names = ACTIONS[env];
  const actions = Array.from({ length: 1 + rng.int(3) }, () => rng.choice(names));
  const tricky = rng.next() < 0.35 ? rng.choice(TRICKY_TEXTS) : '';
  const response = `<think>Turn ${index}: ${tricky}</think><answer>${actions.join(' || ')}</answer>`;
  const invalid = rng.next() < 0.1 ? 1 : 0;
  const reward = last && success ? 1 : invalid ? -0.1 : 0;
  return {
    observation: `Turn ${index + 1}:\nState:\n${grid(rng, 4, env === 'sokoban' ? '#_OXP' : '_OGP')}\nYou have ${5 - index} actions left.`,
    state: { grid: grid(rng, 4, 'FHGS').split('\n'), player: [rng.int(4), rng.int(4)], step: index },
    response,
    actions: invalid ? [...actions.slice(1), 'Jump'] : actions,
    numValidActions: actions.length - invalid,
    reward,
    done: last,
    info: { success: last && success, effective: rng.next() < 0.8, note: rng.next() < 0.2 ? rng.choice(TRICKY_TEXTS) : null },
    numTokens: 20 + rng.int(120),
    logprobSum: -rng.next() * 40,
    advantageMean: rng.normal(),
  };
}

function makeEpisode(
  rng: Rng,
  runId: number,
  env: string,
  iteration: number,
  split: 'train' | 'val',
  groupId: number,
  envIndex: number,
  maxTurns: number,
): NewEpisode {
  const success = rng.next() < 0.3 + iteration * 0.02;
  const numTurns = 1 + rng.int(maxTurns);
  const truncated = !success && numTurns === maxTurns;
  const turns = Array.from({ length: numTurns }, (_, t) => makeTurn(rng, env, t, t === numTurns - 1, success));
  return {
    runId,
    iteration,
    split,
    envTag: env,
    groupId,
    envIndex,
    seed: 1000 * iteration + groupId,
    totalReward: turns.reduce((sum, t) => sum + t.reward, 0),
    success,
    numActions: turns.reduce((sum, t) => sum + t.actions.length, 0),
    truncated,
    filteredOut: split === 'train' && groupId % 4 === 3,
    turns,
  };
}

/**
 * Fills a store with three runs (completed FrozenLake GRPO, failed Sokoban PPO, and a fork of
 * the first from a checkpoint), each with per-iteration metrics, train and validation
 * episodes with turns, and checkpoints. Deterministic for a given seed.
 */
export function seedStore(store: Store, options: FixtureOptions = {}): SeededRun[] {
  const o = {
    seed: 7,
    iterations: 8,
    groups: 2,
    groupSize: 4,
    maxTurns: 4,
    valEvery: 4,
    valEpisodes: 4,
    checkpointEvery: 4,
    ...options,
  };
  const rng = new Rng(o.seed);
  const seeded: SeededRun[] = [];
  const baseTime = 1_735_689_600_000; // 2025-01-01T00:00:00Z
  PLANS.forEach((plan, planIndex) => {
    const parent = plan.parent === 'first' ? seeded[0] : undefined;
    const parentCheckpoint = parent?.checkpoints[0];
    const config = {
      name: plan.name,
      seed: o.seed + planIndex,
      env: { tag: plan.env, size: 4, is_slippery: plan.env === 'frozenlake' },
      algorithm: { adv_estimator: plan.algorithm, clip_ratio_low: 0.2, clip_ratio_high: 0.28, gamma: 1 },
      rollout: { n_groups: o.groups, group_size: o.groupSize, max_turn: o.maxTurns, rollout_filter_ratio: 0.25 },
      notes: 'quotes " and commas, and\nnewlines in a config',
    };
    const createdAt = baseTime + planIndex * 3_600_000;
    const run = store.runs.create({
      name: plan.name,
      config,
      seed: o.seed + planIndex,
      envTags: [plan.env],
      algorithm: plan.algorithm,
      status: 'running',
      createdAt,
      startedAt: createdAt + 1500,
      backend: 'wasm',
      device: 'cpu',
      parentRunId: parent?.run.id ?? null,
      parentCheckpointId: parentCheckpoint?.id ?? null,
      parentIteration: parentCheckpoint?.iteration ?? null,
      tags: planIndex === 0 ? ['baseline', 'paper-repro'] : [],
      notes: planIndex === 1 ? 'crashed, see error, "investigate"' : '',
    });
    const firstIteration = parentCheckpoint ? parentCheckpoint.iteration + 1 : 1;
    const episodeIds: number[] = [];
    const checkpoints: CheckpointRecord[] = [];
    let metricCount = 0;
    let turnCount = 0;
    for (let it = firstIteration; it <= o.iterations; it++) {
      const wallTime = createdAt + it * 12_345.5;
      const episodes: NewEpisode[] = [];
      for (let g = 0; g < o.groups; g++) {
        for (let k = 0; k < o.groupSize; k++) {
          episodes.push(makeEpisode(rng, run.id, plan.env, it, 'train', g, g * o.groupSize + k, o.maxTurns));
        }
      }
      const isVal = it % o.valEvery === 0;
      if (isVal) {
        for (let v = 0; v < o.valEpisodes; v++) episodes.push(makeEpisode(rng, run.id, plan.env, it, 'val', v, v, o.maxTurns));
      }
      episodeIds.push(...store.episodes.insert(episodes));
      turnCount += episodes.reduce((sum, e) => sum + e.turns.length, 0);
      const train = episodes.filter((e) => e.split === 'train');
      const metrics: MetricPoint[] = [
        { name: 'train/loss/policy', value: rng.normal() * 0.1 },
        { name: 'train/reward/mean', value: train.reduce((s, e) => s + e.totalReward, 0) / train.length },
        { name: `train/${plan.env}/success`, value: train.filter((e) => e.success).length / train.length },
        { name: 'train/response_length/mean', value: 40 + rng.int(60) },
        { name: 'train/kl', value: plan.status === 'failed' && it === o.iterations ? null : rng.next() * 0.01 },
      ].map((m) => ({ ...m, runId: run.id, iteration: it, wallTime }));
      if (isVal) {
        const val = episodes.filter((e) => e.split === 'val');
        metrics.push({
          runId: run.id,
          name: `val/${plan.env}/success`,
          iteration: it,
          value: val.filter((e) => e.success).length / val.length,
          wallTime,
        });
      }
      store.metrics.insert(metrics);
      metricCount += metrics.length;
      if (it % o.checkpointEvery === 0) {
        checkpoints.push(
          ...store.checkpoints.insert([
            {
              runId: run.id,
              iteration: it,
              path: `checkpoints/run-${run.id}/iter-${it}.safetensors`,
              sizeBytes: 1_048_576 + it,
              sha256: rng.nextU32().toString(16).padStart(8, '0').repeat(8),
              createdAt: wallTime + 10,
              metrics: Object.fromEntries(metrics.map((m) => [m.name, m.value])),
            },
          ]),
        );
      }
    }
    const finishedAt = createdAt + o.iterations * 12_345.5 + 999;
    const final = store.runs.update(run.id, {
      status: plan.status,
      finishedAt: Math.round(finishedAt),
      error: plan.error ?? null,
    });
    seeded.push({ run: final, metricCount, episodeIds, turnCount, checkpoints });
  });
  return seeded;
}

export interface FixtureDataDir extends TempDir {
  runs: SeededRun[];
}

/** A temp data folder with a seeded, closed database in it. */
export function makeFixtureDataDir(options: FixtureOptions = {}): FixtureDataDir {
  const temp = makeTempDir();
  const store = openStore(temp.dir, { create: true });
  try {
    return { ...temp, runs: seedStore(store, options) };
  } finally {
    store.close();
  }
}
