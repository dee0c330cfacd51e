// Generated calls to every method of the workbench API through `createApi(...).call`, the entry
// point IPC and HTTP share, against a fixture data folder with real-shaped runs (and one run
// whose stored config is a real one, so replay and re-simulation get past the config): valid
// calls with ids that exist, each valid call with one field changed to a bad value (wrong type,
// huge, negative, fractional, NaN, ids that do not exist or are of another kind, long and odd
// unicode strings, path traversal, `__proto__` and `constructor` keys, deep nesting), wrong
// arity, random argument lists and arguments that are no list; now and then a few calls at once,
// as the renderer fires them. Then a smaller series over real HTTP: the same generated calls as
// JSON, and malformed, non-array and oversized bodies, unknown methods, wrong content types and
// verbs, odd queries of the download routes.
// A call resolves, or is refused with an ApiError of a user's code (INVALID_ARGUMENTS,
// NOT_FOUND, REFUSED, UNKNOWN_METHOD) and a one-line message naming the method or what it was
// given: INTERNAL, a TypeError or SqliteError escaping, or a call that hangs is a bug. A refused
// call changes nothing stored, a resolved one only when that is its job (rename, tag, delete);
// nothing reaches Object.prototype; SQLite's integrity_check passes at the end.
// The API has no run manager, so nothing starts a trainer (those methods are refused), and its
// save dialogs answer with paths in a temp folder, so nothing is written outside one.
// FUZZ_SEED and FUZZ_N run other and longer series (10 s a case allowed; 15,000 take some two
// minutes on a 2-core machine):
//   FUZZ_SEED=101 FUZZ_N=15000 npx vitest run tests/http/api-fuzz.test.ts
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_METHODS, type ApiMethod } from '../../preload/contract';
import { ApiError, createApi, type Api } from '../../main/api';
import { startHttpServer, type RunningHttpServer } from '../../main/http';
import { dbPath } from '../../main/paths';
import { openStore, type Store } from '../../main/store/db';
import type { NewTurn } from '../../main/store/types';
import { loadRunConfig } from '../../trainer-core/config';
import { Rng } from '../../trainer-core/rng';
import { makeFixtureDataDir, makeTempDir, seedStore, type FixtureDataDir, type TempDir } from '../helpers/fixtures';

const SEED = Number(process.env.FUZZ_SEED ?? 42);
const N = Number(process.env.FUZZ_N ?? 800);
const HTTP_N = Math.max(60, Math.round(N / 5));
const CASE_MS = 10_000;
const USER_CODES = ['INVALID_ARGUMENTS', 'NOT_FOUND', 'REFUSED', 'UNKNOWN_METHOD'];
/** What a user's refusal never says: an internal error worded as one. */
const BUG_TEXT = /Cannot read propert|is not a function|is not iterable|is not defined|Maximum call stack|SQLITE_|SqliteError|\n\s+at /;
/** The calls whose job is to change what is stored. */
const MUTATING = new Set<string>(['updateRun', 'deleteRun', 'tagRuns', 'deleteRuns', 'deleteCheckpoint']);
const TABLES = ['runs', 'metrics', 'episodes', 'turns', 'checkpoints', 'evaluations', 'cluster_jobs', 'run_imports', 'run_logs'];
const repoRoot = join(import.meta.dirname, '../..');
const REAL_CONFIG = join(repoRoot, 'configs/frozenlake-nonslip.yaml');
const REAL_TAG = 'FrozenLakeNonSlip';

let fixture: FixtureDataDir;
let out: TempDir;
let store: Store;
let reader: Database.Database;
/** No run manager and no dialogs: the run-control and save methods are refused. */
let bare: Api;
/** Save dialogs that answer with a fresh path in `out` (or cancel): exports and copies land there. */
let saving: Api;
let server: RunningHttpServer;
let dialogAnswers = 0;

// ---- the fixture ----------------------------------------------------------------------------

function lakeTurn(index: number, action: string, last: boolean): NewTurn {
  return {
    observation: `Turn ${index + 1}:\nP___\n_O_O\n___O\nO__G`,
    state: { row: 0, col: index },
    response: `<answer>${action}</answer>`,
    actions: [action],
    numValidActions: 1,
    reward: 0,
    done: last,
    info: { success: false },
    numTokens: 5,
    logprobSum: -1.5,
    advantageMean: 0.1,
  };
}

/**
 * A run stored with the real resolved config of configs/frozenlake-nonslip.yaml, as the trainer
 * stores one: episodes of its env tags, a long metric (thinned by compareSeriesBatch), a
 * checkpoint whose folder exists, and an evaluation of it.
 */
function addRealRun(target: Store): void {
  const config = loadRunConfig(REAL_CONFIG);
  const run = target.runs.create({
    name: 'frozenlake-nonslip',
    config,
    seed: config.trainer.seed,
    envTags: [REAL_TAG, 'FrozenLakeAnyStart'],
    algorithm: 'grpo',
    status: 'completed',
    tags: ['seeds:lake', 'real'],
  });
  const episode = (groupId: number, split: 'train' | 'val') => ({
    runId: run.id,
    iteration: 1,
    split,
    envTag: REAL_TAG,
    groupId,
    envIndex: groupId,
    seed: groupId,
    totalReward: 0,
    success: false,
    numActions: 2,
    truncated: false,
    filteredOut: false,
    turns: [lakeTurn(0, 'Right', false), lakeTurn(1, 'Down', true)],
  });
  target.episodes.insert([episode(0, 'train'), episode(1, 'train'), episode(0, 'val')]);
  target.metrics.insert(
    Array.from({ length: 3000 }, (_, i) => ({ runId: run.id, name: 'train/long', iteration: i + 1, value: i % 97 === 0 ? NaN : Math.sin(i / 50), wallTime: 1_700_000_000_000 + i })),
  );
  const [checkpoint] = target.checkpoints.insert([{ runId: run.id, iteration: 1, path: `checkpoints/run-${run.id}/iter-1`, sizeBytes: 2, sha256: '0'.repeat(64) }]);
  mkdirSync(join(target.dataDir, checkpoint.path), { recursive: true });
  writeFileSync(join(target.dataDir, checkpoint.path, 'model.json'), '{}');
  const { runId: _runId, iteration: _iteration, split: _split, ...played } = episode(3, 'val');
  target.evaluations.insert({ runId: run.id, checkpointId: checkpoint.id, iteration: 1, config, overrides: ['trainer.seed=1'], metrics: { 'val/success': 0.5, 'val/nan': null }, episodes: [played] });
}

/** Puts back what deletions took, so later cases still find runs, checkpoints and episodes. */
function replenish(): void {
  const names = (reader.prepare('SELECT name FROM runs').all() as Array<{ name: string }>).map((r) => r.name);
  if (!names.includes('frozenlake-nonslip')) addRealRun(store);
  const checkpoints = (reader.prepare('SELECT COUNT(*) AS n FROM checkpoints').get() as { n: number }).n;
  if (names.length < 4 || checkpoints < 2) seedStore(store, { iterations: 4, checkpointEvery: 2 });
}

interface Ids {
  runs: number[];
  checkpoints: number[];
  episodes: number[];
  evaluations: number[];
  realRun: number;
  realEpisodes: number[];
  metricNames: string[];
}

function column(sql: string): number[] {
  return (reader.prepare(sql).all() as Array<{ id: number }>).map((r) => r.id);
}

function currentIds(): Ids {
  const realRun = column("SELECT id FROM runs WHERE name = 'frozenlake-nonslip' ORDER BY id LIMIT 1")[0];
  return {
    runs: column('SELECT id FROM runs ORDER BY id'),
    checkpoints: column('SELECT id FROM checkpoints ORDER BY id'),
    episodes: column('SELECT id FROM episodes ORDER BY id'),
    evaluations: column('SELECT id FROM evaluations ORDER BY id'),
    realRun,
    realEpisodes: column(`SELECT id FROM episodes WHERE run_id = ${realRun} ORDER BY id`),
    metricNames: (reader.prepare('SELECT DISTINCT name FROM metrics ORDER BY name').all() as Array<{ name: string }>).map((r) => r.name),
  };
}

/** Row counts of every table and a digest of the runs and checkpoints rows. */
function snapshot(): string {
  const counts = TABLES.map((t) => `${t} ${(reader.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n}`);
  const rows = JSON.stringify([reader.prepare('SELECT * FROM runs ORDER BY id').all(), reader.prepare('SELECT * FROM checkpoints ORDER BY id').all()]);
  return `${counts.join(', ')}, rows ${createHash('sha256').update(rows).digest('hex').slice(0, 12)}`;
}

beforeAll(async () => {
  fixture = makeFixtureDataDir({ iterations: 4, checkpointEvery: 2 });
  out = makeTempDir('turnlab-api-fuzz-');
  store = openStore(fixture.dir);
  addRealRun(store);
  reader = new Database(dbPath(fixture.dir), { readonly: true });
  const configsDir = join(repoRoot, 'configs');
  bare = createApi(store, { version: 'fuzz', configsDir });
  const answer = (make: boolean): string | null => {
    dialogAnswers += 1;
    if (dialogAnswers % 5 === 0) return null;
    const path = join(out.dir, `answer-${dialogAnswers}`);
    if (make) mkdirSync(path);
    return path;
  };
  saving = createApi(store, {
    version: 'fuzz',
    configsDir,
    dialogs: { chooseFile: async () => answer(false), chooseFolder: async () => answer(true) },
  });
  const rendererDir = join(out.dir, 'renderer');
  mkdirSync(rendererDir);
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>t</title>');
  server = await startHttpServer({ api: bare, rendererDir, store });
});

afterAll(async () => {
  await server?.close();
  reader?.close();
  store?.close();
  fixture?.cleanup();
  out?.cleanup();
});

// ---- what the generators draw from ----------------------------------------------------------

function nested(depth: number, array: boolean): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = array ? [value] : { a: value };
  return value;
}

/** An object holding `key` as its own property, as JSON.parse or a structured clone makes it. */
function withOwn(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

const BAD_VALUES: unknown[] = [
  -1, 0, -0, 0.5, 1.5, -2.5, 1e300, -1e300, 2 ** 31, 2 ** 31 - 1, 2 ** 53, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MIN_VALUE,
  NaN, Infinity, -Infinity,
  '', ' ', '1', '-1', '1.5', 'NaN', 'Infinity', '1e3', '0x10', 'true', 'null', 'undefined', 'x'.repeat(300), 'y'.repeat(5000),
  '../../../etc/passwd', '..\\..\\..\\windows\\win.ini', '/etc/passwd', '/etc/shadow.yaml', '../../../../etc/hosts.yml', 'configs/../../../etc/x.yaml',
  '/proc/self/environ', '/dev/null', 'file:///etc/passwd', '\u0000', 'a\u0000b', '\uD800', '\uDFFF\uD800x', '🧊🥅'.repeat(40), '\u202Egnp.exe',
  'Z\u0364\u0351a\u0308\u0347l\u036eg\u030co', '日本語', 'a\nb', 'a\r\nb\tc', '%s%n%x', "'; DROP TABLE runs; --", '%', '_', '\\', '"', "'",
  '${trainer.seed}', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'key=value', '=', 'trainer.seed=1', 'seeds:x',
  'train', 'val', 'test', 'csv', 'jsonl', 'runs', 'turns', 'F32', 'BF16', 'local', 'slurm', 'id', 'progress',
  null, undefined, true, false, [], [[]], [1, 2, 3], [-1], [1.5], ['1'], [null], [undefined], ['x', 'y'], Array(3), {}, { a: 1 }, { id: 1 },
  Object.create(null), withOwn({}, '__proto__', { polluted: true }), withOwn({}, 'constructor', { prototype: { polluted: true } }),
  withOwn({ runId: 1 }, '__proto__', { checkpointId: 1 }), nested(64, false), nested(64, true), nested(3000, false), nested(3000, true),
  Array.from({ length: 1500 }, (_, i) => i + 1),
];

const OBJECT_KEYS = [
  'search', 'status', 'env', 'algorithm', 'tag', 'sort', 'descending', 'offset', 'limit', 'withChoices', 'split', 'success', 'groupId', 'envTag',
  'filteredOut', 'configPath', 'overrides', 'name', 'seeds', 'concurrency', 'runId', 'checkpointId', 'fork', 'tags', 'notes', 'yaml', 'episodes',
  'what', 'format', 'runIds', 'out', 'merged', 'dtype', 'grid', 'executor', 'slurm', 'remoteDir', '__proto__', 'constructor', 'extra',
];

class Draw {
  constructor(
    readonly rng: Rng,
    readonly ids: Ids,
  ) {}

  pick<T>(items: readonly T[], fallback: T): T {
    return items.length > 0 ? this.rng.choice(items) : fallback;
  }

  run(): number {
    return this.pick(this.ids.runs, 1);
  }

  checkpoint(): number {
    return this.pick(this.ids.checkpoints, 1);
  }

  episode(): number {
    return this.pick(this.ids.episodes, 1);
  }

  evaluation(): number {
    return this.pick(this.ids.evaluations, 1);
  }

  /** An id: of a run, checkpoint, episode or evaluation (any kind, for any argument), or of none. */
  id(): number {
    const all = [...this.ids.runs, ...this.ids.checkpoints, ...this.ids.evaluations];
    const r = this.rng.next();
    if (r < 0.45) return this.pick(all, 1);
    if (r < 0.65) return this.episode();
    const top = Math.max(0, ...all, ...this.ids.episodes);
    return this.rng.choice([top + 1, top + 1000, 999_999, 2 ** 31 - 1, Number.MAX_SAFE_INTEGER]);
  }

  metricName(): string {
    return this.pick(this.ids.metricNames, 'train/kl');
  }

  value(depth = 0): unknown {
    const r = this.rng.next();
    if (r < 0.45) return this.rng.choice(BAD_VALUES);
    if (r < 0.7) return this.id();
    if (r < 0.8) return this.rng.next() < 0.5 ? this.metricName() : this.rng.choice([REAL_TAG, 'frozenlake', 'sokoban', 'grpo', 'baseline', REAL_CONFIG]);
    if (depth > 2) return null;
    if (r < 0.9) return Array.from({ length: this.rng.int(4) }, () => this.value(depth + 1));
    const object: Record<string, unknown> = {};
    for (let k = this.rng.int(4); k > 0; k--) withOwn(object, this.rng.choice(OBJECT_KEYS), this.value(depth + 1));
    return object;
  }

  /**
   * A value of the same type as `old` half the time: an odd string or number that passes the
   * type check gets past the schema into the handler and the store.
   */
  like(old: unknown): unknown {
    if (this.rng.next() < 0.5) return this.value();
    if (typeof old === 'string') return this.rng.next() < 0.7 ? this.rng.choice(STRINGS) : this.metricName();
    if (typeof old === 'number') return this.rng.next() < 0.5 ? this.rng.choice(NUMBERS) : this.id();
    if (typeof old === 'boolean') return !old;
    return this.value();
  }
}

const STRINGS = BAD_VALUES.filter((v): v is string => typeof v === 'string');
const NUMBERS = BAD_VALUES.filter((v): v is number => typeof v === 'number');

interface Template {
  args: (d: Draw) => unknown[];
  /** The valid call must resolve (a read of ids that exist); false where it may be refused. */
  resolves: boolean;
}

const all = (d: Draw, n: number): number[] => Array.from({ length: 1 + d.rng.int(n) }, () => d.run());
const filter = (d: Draw) => ({ split: d.rng.choice(['train', 'val']), success: d.rng.next() < 0.5, groupId: d.rng.int(3), envTag: d.rng.choice(['frozenlake', REAL_TAG]), filteredOut: false });

/** A valid call of each method, with ids that exist now. */
const TEMPLATES: { [M in ApiMethod]: Template } = {
  appInfo: { args: () => [], resolves: true },
  listRuns: { args: () => [], resolves: true },
  runPage: {
    args: () => [
      {
        search: 'grpo',
        status: 'completed',
        env: 'frozenlake',
        algorithm: 'grpo',
        tag: 'baseline',
        where: [
          { column: 'algorithm.adv_estimator', op: '=', value: 'grpo' },
          { column: 'metric:train/kl', op: '>=', value: 0 },
        ],
        sort: 'progress',
        descending: true,
        offset: 0,
        limit: 5,
        withChoices: true,
      },
    ],
    resolves: true,
  },
  getRuns: { args: (d) => [all(d, 3)], resolves: true },
  getRun: { args: (d) => [d.run()], resolves: true },
  metricNames: { args: (d) => [d.run()], resolves: true },
  metricSeries: { args: (d) => [d.run(), [d.metricName(), 'train/kl']], resolves: true },
  latestMetrics: { args: (d) => [d.run()], resolves: true },
  listCheckpoints: { args: (d) => [d.run()], resolves: true },
  listEpisodes: { args: (d) => [d.run(), 1 + d.rng.int(4), filter(d)], resolves: true },
  episodeTurns: { args: (d) => [d.episode()], resolves: true },
  episodeIterations: { args: (d) => [d.run(), d.rng.choice(['train', 'val'])], resolves: true },
  runLog: { args: (d) => [d.run(), d.rng.int(5)], resolves: true },
  listConfigs: { args: () => [], resolves: true },
  startRun: { args: () => [{ configPath: REAL_CONFIG, overrides: ['trainer.total_training_steps=1'], name: 'fuzz', seeds: [1, 2], concurrency: 1 }], resolves: false },
  stopRun: { args: (d) => [d.run()], resolves: false },
  resumeRun: { args: (d) => [{ runId: d.run(), fork: true, overrides: ['trainer.total_training_steps=9'], name: 'fuzz-fork' }], resolves: false },
  activeTrainings: { args: () => [], resolves: true },
  queuedSeedRuns: { args: () => [], resolves: true },
  sweepPlans: { args: () => [], resolves: true },
  stopSeedGroup: { args: (d) => [d.rng.choice(['fuzz', 'no-such-group'])], resolves: false },
  updateRun: { args: (d) => [d.run(), { name: `renamed ${d.rng.int(100)}`, tags: ['a', ' b ', 'a'], notes: 'fuzzed\nnotes' }], resolves: true },
  deleteRun: { args: (d) => [d.run()], resolves: true },
  tagRuns: { args: (d) => [{ runIds: all(d, 3), add: [`t${d.rng.int(5)}`, ' b '], remove: ['a'] }], resolves: true },
  deleteRuns: { args: (d) => [all(d, 2)], resolves: true },
  startRunFromText: { args: () => [{ yaml: 'trainer:\n  total_training_steps: 1\n', overrides: [], name: 'fuzz', seeds: [3], concurrency: 2 }], resolves: false },
  checkRunConfig: {
    args: (d) => [d.rng.next() < 0.5 ? { configPath: REAL_CONFIG, overrides: ['trainer.seed=5'] } : { yaml: 'trainer:\n  seed: 4\n', overrides: ['trainer.total_training_steps=3'] }],
    resolves: true,
  },
  checkSweep: {
    args: (d) => [d.rng.next() < 0.5 ? { configPath: REAL_CONFIG, overrides: ['trainer.seed=5'], grid: ['algorithm.gamma=0.9,1.0'] } : { yaml: 'trainer:\n  seed: 4\n', grid: ['trainer.seed=1,2'] }],
    resolves: true,
  },
  listBackends: { args: () => [], resolves: false },
  evaluateCheckpoint: { args: (d) => [{ checkpointId: d.checkpoint(), episodes: 4 }], resolves: false },
  listEvaluations: { args: (d) => [d.run()], resolves: true },
  getEvaluation: { args: (d) => [d.evaluation()], resolves: true },
  listEvaluationEpisodes: { args: (d) => [d.evaluation(), { split: 'val', envTag: REAL_TAG }], resolves: true },
  deleteCheckpoint: { args: (d) => [d.checkpoint()], resolves: true },
  saveExport: {
    args: (d) => {
      const request = { what: d.rng.choice(['runs', 'metrics', 'episodes', 'turns', 'logs']), format: d.rng.choice(['csv', 'jsonl']), runIds: all(d, 2) };
      // Now and then an evaluation's episodes or turns, of its run or another's.
      return [d.rng.next() < 0.3 ? { ...request, evaluationId: d.evaluation() } : request];
    },
    resolves: false,
  },
  // Most fixture checkpoints have no folder (NOT_FOUND); the real run's has one.
  saveCheckpointFolder: { args: (d) => [d.checkpoint()], resolves: false },
  runModel: { args: (d) => [d.run()], resolves: true },
  exportCheckpointModel: { args: (d) => [{ checkpointId: d.checkpoint(), out: join(out.dir, 'model'), merged: false, dtype: 'F32' }], resolves: false },
  compareSeries: { args: (d) => [all(d, 3), d.metricName()], resolves: true },
  compareSeriesBatch: { args: (d) => [[d.ids.realRun, ...all(d, 2)], ['train/long', d.metricName()], 16 + d.rng.int(100)], resolves: true },
  compareMetricNames: { args: (d) => [all(d, 3)], resolves: true },
  replaySettings: { args: (d) => [d.ids.realRun, REAL_TAG], resolves: true },
  resimulateEpisode: { args: (d) => [d.pick(d.ids.realEpisodes, 1)], resolves: true },
  listClusterJobs: { args: () => [], resolves: true },
  cancelClusterJob: { args: (d) => [d.id()], resolves: false },
  resumeClusterJob: { args: (d) => [d.id(), { time: d.rng.choice(['01:00:00', '90', 'soon']) }], resolves: false },
  // A config that does not exist: a sweep changed one field at a time never reaches sbatch.
  startSweep: {
    args: () => [{ configPath: join(out.dir, 'no-such-sweep.yaml'), grid: ['trainer.seed=1,2'], seeds: [1], executor: 'local', concurrency: 1, slurm: { remoteDir: join(out.dir, 'sweeps') } }],
    resolves: false,
  },
};

type Path = Array<string | number>;

/** Every place in `value` one change can go: its elements and fields, nested. */
function places(value: unknown, at: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.keys(value).flatMap((key) => {
    const path = [...at, Array.isArray(value) ? Number(key) : key];
    return [path, ...places((value as Record<string, unknown>)[key], path)];
  });
}

/** The valid call with one change: a field or element replaced, removed, or one added. */
function mutate(d: Draw, args: unknown[]): { args: unknown[]; change: string } {
  const where = places(args);
  const path = d.rng.choice(where);
  const parent = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], args) as Record<string, unknown> | unknown[];
  const key = path[path.length - 1];
  const r = d.rng.next();
  if (r < 0.75) {
    const value = d.like(parent[key as keyof typeof parent]);
    withOwn(parent as Record<string, unknown>, String(key), value);
    return { args, change: `${path.join('.')} = ${show(value)}` };
  }
  if (r < 0.9) {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
    return { args, change: `${path.join('.')} removed` };
  }
  const added = Array.isArray(parent) ? String(parent.length) : d.rng.choice(OBJECT_KEYS);
  const value = d.value();
  withOwn(parent as Record<string, unknown>, added, value);
  return { args, change: `${[...path.slice(0, -1), added].join('.')} added = ${show(value)}` };
}

interface Case {
  method: string;
  args: unknown;
  kind: string;
  /** The valid call of a method that must resolve. */
  mustResolve: boolean;
}

/** A Slurm sweep of a config that exists would make folders where it says and call sbatch. */
function harmless(c: Case): boolean {
  const request = Array.isArray(c.args) ? (c.args[0] as { executor?: unknown; configPath?: unknown } | null) : null;
  return c.method !== 'startSweep' || request?.executor !== 'slurm' || typeof request.configPath !== 'string' || !existsSync(request.configPath);
}

function drawCase(d: Draw): Case {
  for (;;) {
    const c = drawAnyCase(d);
    if (harmless(c)) return c;
  }
}

function drawAnyCase(d: Draw): Case {
  const method = d.rng.choice(API_METHODS);
  const template = TEMPLATES[method];
  const valid = template.args(d);
  const r = d.rng.next();
  // A method without arguments has nothing to mutate: those draws call it as it is.
  if (r < 0.2 || (r < 0.65 && valid.length === 0)) return { method, args: valid, kind: 'valid', mustResolve: template.resolves };
  if (r < 0.65) {
    const { args, change } = mutate(d, valid);
    return { method, args, kind: `mutated ${change}`, mustResolve: false };
  }
  if (r < 0.8) {
    const args = d.rng.next() < 0.5 && valid.length > 0 ? valid.slice(0, -1) : [...valid, d.value()];
    return { method, args, kind: 'arity', mustResolve: false };
  }
  if (r < 0.95) return { method, args: Array.from({ length: d.rng.int(4) }, () => d.value()), kind: 'random', mustResolve: false };
  let args = d.value();
  while (Array.isArray(args)) args = d.value();
  return { method, args, kind: 'not a list', mustResolve: false };
}

function show(value: unknown): string {
  if (typeof value === 'number' || value === undefined) return String(value);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 120 ? `${text.slice(0, 120)}...(${text.length})` : text;
}

/** The numbers, short strings and keys a call was given, for telling whether a message names one. */
function given(value: unknown, found: Set<string> = new Set(), depth = 0): Set<string> {
  if (depth > 6) return found;
  if (typeof value === 'number' && Number.isFinite(value)) found.add(String(value));
  else if (typeof value === 'string' && value.trim().length > 1 && value.length <= 300) found.add(value);
  else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (!Array.isArray(value)) found.add(key);
      given((value as Record<string, unknown>)[key], found, depth + 1);
    }
  }
  return found;
}

/** Every string a call was given, however short. */
function givenStrings(value: unknown, depth = 0): string[] {
  if (typeof value === 'string') return [value];
  if (depth > 6 || value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap((v) => givenStrings(v, depth + 1));
}

function namesWhatIsWrong(method: string, args: unknown, message: string): boolean {
  if (message.includes(method) || /\bargument/.test(message)) return true;
  // A value quoted whole names it, even one character long.
  if (givenStrings(args).some((s) => message.includes(JSON.stringify(s)))) return true;
  // Whole words only: the key `out` is not named by `actor_rollout_ref`, nor the id 2 by `run 23`.
  return [...given(args)].some((g) => new RegExp(`(^|\\W)${g.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\W|$)`).test(message));
}

/** What is wrong with how a call ended: null when it resolved or was refused as a user's error. */
function judge(method: string, args: unknown, outcome: { error?: unknown; timedOut?: boolean }): string | null {
  if (outcome.timedOut) return `no answer in ${CASE_MS} ms`;
  const { error } = outcome;
  if (error === undefined) return null;
  if (!(error instanceof ApiError)) return `${(error as Error)?.name ?? typeof error} escaped: ${(error as Error)?.message ?? String(error)}`;
  if (!USER_CODES.includes(error.code)) return `${error.code}: ${error.message}`;
  const message = error.message;
  if (message.trim() === '') return `${error.code} with an empty message`;
  if (/[\r\n]/.test(message)) return `${error.code} message of several lines: ${show(message)}`;
  if (BUG_TEXT.test(message)) return `${error.code} with an internal error's message: ${show(message)}`;
  if (!namesWhatIsWrong(method, args, message)) return `${error.code} message names neither the method nor what it was given: ${show(message)}`;
  return null;
}

async function settle(work: () => Promise<unknown>): Promise<{ value?: unknown; error?: unknown; timedOut?: boolean }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ timedOut: true }>((resolveTimeout) => {
    timer = setTimeout(() => resolveTimeout({ timedOut: true }), CASE_MS);
  });
  try {
    return await Promise.race([work().then((value) => ({ value }), (error: unknown) => ({ error: error ?? new Error('rejected with nothing') })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const prototypeKeys = (): string => Object.getOwnPropertyNames(Object.prototype).sort().join(',');

/** Whether a result can travel: HTTP sends it as JSON. */
function unsendable(value: unknown): string | null {
  try {
    JSON.stringify(value);
    return null;
  } catch (error) {
    return `the result cannot be sent as JSON: ${(error as Error).message}`;
  }
}

/** Methods some call of the series resolved: a fixture that lets every call be refused tests little. */
const resolvedMethods = new Set<string>();

interface Call {
  api: Api;
  c: Case;
  label: string;
}

/**
 * Calls made at once (one, or a few as the renderer fires them), and what they left behind.
 * Problems are said as found, so a long series stopped early still shows them.
 */
async function check(calls: Call[], problems: string[]): Promise<void> {
  const protoBefore = prototypeKeys();
  const before = snapshot();
  const outcomes = await Promise.all(calls.map(({ api, c }) => settle(() => api.call(c.method, c.args))));
  const after = snapshot();
  const changed = after !== before;
  const resolved = (k: number): boolean => outcomes[k].error === undefined && !outcomes[k].timedOut;
  const mayChange = calls.some(({ c }, k) => MUTATING.has(c.method) && resolved(k));
  // Beside a deletion a valid read may rightly find its run gone or busy.
  const alone = calls.length === 1 || !calls.some(({ c }) => MUTATING.has(c.method));
  const found = calls.flatMap(({ c, label }, k) => {
    const outcome = outcomes[k];
    if (resolved(k)) resolvedMethods.add(c.method);
    const lines = [judge(c.method, c.args, outcome), resolved(k) ? unsendable(outcome.value) : null];
    if (c.mustResolve && alone && !resolved(k)) lines.push(`a valid call was refused: ${(outcome.error as Error | undefined)?.message}`);
    const said = lines.filter((line): line is string => line !== null);
    return said.length > 0 ? [`${label} ${c.kind}: ${c.method}(${show(c.args)})\n  ${said.join('\n  ')}`] : [];
  });
  const group = calls.map(({ c, label }) => `${label} ${c.method}(${show(c.args)})`).join(' with ');
  if (prototypeKeys() !== protoBefore || ({} as Record<string, unknown>).polluted !== undefined) found.push(`${group}\n  Object.prototype changed`);
  if (changed && !mayChange) found.push(`${group}\n  stored data changed by calls refused or not meant to change it:\n    before ${before}\n    after  ${after}`);
  for (const line of found) {
    problems.push(line);
    process.stderr.write(`${line}\n`);
  }
  if (changed) replenish();
}

// ---- HTTP -----------------------------------------------------------------------------------

interface Reply {
  status: number;
  contentType: string;
  json: { result?: unknown; error?: { code?: unknown; message?: unknown } } | null;
}

function send(path: string, body: string | Buffer, headers: Record<string, string> = {}, verb = 'POST', agent?: Agent): Promise<Reply> {
  return new Promise((resolveReply, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: verb,
        path,
        agent,
        headers: { Host: `127.0.0.1:${server.port}`, Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          let json: Reply['json'] = null;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Reply['json'];
          } catch {
            // judged below: every API answer is JSON
          }
          resolveReply({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const STATUS_OF: Record<string, number> = { INVALID_ARGUMENTS: 400, NOT_FOUND: 404, REFUSED: 409, UNKNOWN_METHOD: 404 };

/** What is wrong with an HTTP answer: 200 with a result, or a 4xx JSON error with a one-line message. */
function judgeReply(reply: Reply): string | null {
  if (!reply.contentType.startsWith('application/json') || reply.json === null) return `HTTP ${reply.status} without a JSON body`;
  if (reply.status === 200) return 'result' in reply.json ? null : 'HTTP 200 without a result';
  const error = reply.json.error;
  if (reply.status < 400 || reply.status >= 500) return `HTTP ${reply.status}: ${show(error)}`;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string' || error.message.trim() === '') return `HTTP ${reply.status} without an error code and message: ${show(reply.json)}`;
  if (/[\r\n]/.test(error.message) || BUG_TEXT.test(error.message)) return `HTTP ${reply.status} ${error.code}: ${show(error.message)}`;
  if (STATUS_OF[error.code] !== undefined && STATUS_OF[error.code] !== reply.status) return `HTTP ${reply.status} for ${error.code}`;
  return null;
}

const MALFORMED_BODIES = [
  '[1,', '[', ']', '{', '[}', '[1,]', '[01]', '[.5]', '[NaN]', '[Infinity]', '[undefined]', "['x']", '[1] [2]', '[]]', 'nul', 'tru', '"', '\u0000', '\uFEFF[]',
  '[1e99999]', '[-]', '[1,2', '{"a":1', '[{"__proto__":', '<xml/>', '[1]\u0000', '[\n1\n,\n]',
];
const NOT_ARRAY_BODIES = ['{}', '1', '0', '-1', '"x"', '"[]"', 'null', 'true', 'false', '{"0":1,"length":1}', '{"__proto__":[]}', '{"constructor":{"prototype":{"polluted":1}}}'];
const CONTENT_TYPES = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'json', 'application/json-patch+json', 'text/json', ' ', 'application/xml'];
const METHOD_NAMES = ['nope', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'call', 'events', 'export', 'APPINFO', 'getRun%00', 'getRun%2F..', '..%2F..%2Fetc%2Fpasswd', '%E2%80%AE', 'x'.repeat(3000), 'getRun.', 'getrun', 'appInfo%20'];

interface RawRequest {
  what: string;
  verb: string;
  path: string;
  body: string | Buffer;
  headers?: Record<string, string>;
}

const QUERY_PARTS = [
  'what=runs', 'what=turns', 'what=__proto__', 'format=csv', 'format=jsonl', 'format=xml', 'runs=1', 'runs=1,2', 'runs=', 'runs=1,,2', 'runs=-1',
  'runs=99999999999999999999', 'runs=1e3', 'runs=%00', 'id=1', 'id=0', 'id=-1', 'id=1.5', 'id=99999999999999999999', 'id=..%2F..', 'id=',
  '__proto__=x', 'constructor=1', 'token=wrong', 'x=%E2%80%AE', '%=', 'what', '&&', 'what=episodes', 'evaluation=1', 'evaluation=0', 'evaluation=1.5', 'evaluation=',
];

/**
 * A request the server must refuse with a JSON 4xx: malformed, non-array or oversized bodies,
 * unknown methods, wrong content types and verbs, odd queries of the download routes (which
 * may answer 200 with a file).
 */
function rawRequest(rng: Rng): RawRequest {
  const method = rng.choice(API_METHODS);
  const post = (what: string, path: string, body: string | Buffer, headers?: Record<string, string>): RawRequest => ({ what, verb: 'POST', path, body, headers });
  const r = rng.next();
  if (r < 0.25) {
    const body = rng.choice(MALFORMED_BODIES);
    return post(`malformed body ${show(body)}`, `/api/${method}`, body);
  }
  if (r < 0.4) {
    const body = rng.choice(NOT_ARRAY_BODIES);
    return post(`non-array body ${body}`, `/api/${method}`, body);
  }
  if (r < 0.48) {
    const size = (1 << 20) + 1 + rng.int(3 << 20);
    const body = rng.next() < 0.5 ? Buffer.alloc(size, 0x20) : `[${'1,'.repeat(size / 2)}1]`;
    return post(`body of ${body.length} bytes`, `/api/${method}`, body);
  }
  if (r < 0.66) {
    const name = rng.choice(METHOD_NAMES);
    return post(`unknown method ${show(name)}`, `/api/${name}`, '[]');
  }
  if (r < 0.76) {
    const type = rng.choice(CONTENT_TYPES);
    return post(`content type ${show(type)}`, `/api/${method}`, '[]', { 'Content-Type': type });
  }
  if (r < 0.82) {
    const verb = rng.choice(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
    return { what: `verb ${verb}`, verb, path: `/api/${method}`, body: '' };
  }
  const route = rng.choice(['/api/export', '/api/checkpoint-archive', '/api/events']);
  const query = Array.from({ length: rng.int(4) }, () => rng.choice(QUERY_PARTS)).join('&');
  return { what: 'download query', verb: rng.next() < 0.9 ? 'GET' : 'POST', path: `${route}?${query}`, body: '' };
}

// ---- the series -----------------------------------------------------------------------------

describe(`fuzzed API calls (FUZZ_SEED=${SEED}, FUZZ_N=${N})`, () => {
  it('resolves each or refuses it with a user error and one line naming what is wrong, changes nothing it refused, and keeps the database sound', async () => {
    const rng = new Rng(SEED);
    const problems: string[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < N; ) {
      const draw = new Draw(rng, currentIds());
      // Mostly one call at a time; now and then a few at once, as the renderer fires them.
      const size = rng.next() < 0.85 ? 1 : Math.min(2 + rng.int(3), N - i);
      const calls = Array.from({ length: size }, (_, k) => ({ api: rng.next() < 0.5 ? bare : saving, c: drawCase(draw), label: `#${i + k}` }));
      for (const { c } of calls) seen.add(c.method);
      await check(calls, problems);
      i += size;
    }
    // A short series may draw some method's valid call only in shapes refused as they may be (a
    // deleteRun of a run deleted just before): each resolving method not yet resolved gets one valid call.
    for (const method of API_METHODS.filter((m) => TEMPLATES[m].resolves && !resolvedMethods.has(m))) {
      const args = TEMPLATES[method].args(new Draw(rng, currentIds()));
      await check([{ api: bare, c: { method, args, kind: 'valid', mustResolve: true }, label: `closing ${method}` }], problems);
    }
    expect(problems, problems.join('\n')).toEqual([]);
    if (N >= 400) {
      expect([...seen].sort()).toEqual([...API_METHODS].sort());
      expect(API_METHODS.filter((m) => TEMPLATES[m].resolves && !resolvedMethods.has(m))).toEqual([]);
    }
    expect(store.integrityCheck()).toEqual(['ok']);
  }, Math.max(120_000, N * 1_000));

  it('answers the same calls and malformed requests over HTTP with JSON: a result, or a 4xx error with a one-line message; and keeps answering', async () => {
    const rng = new Rng(SEED + 1);
    const problems: string[] = [];
    const note = (line: string): void => {
      problems.push(line);
      process.stderr.write(`${line}\n`);
    };
    for (let i = 0; i < HTTP_N; i++) {
      const before = snapshot();
      if (rng.next() < 0.5) {
        const c = drawCase(new Draw(rng, currentIds()));
        let body: string;
        try {
          body = JSON.stringify(c.args) ?? 'null';
        } catch {
          continue;
        }
        const reply = await send(`/api/${c.method}`, body).catch((error: Error) => error);
        const problem = reply instanceof Error ? `no answer: ${reply.message}` : judgeReply(reply);
        if (problem) note(`http #${i} ${c.kind}: ${c.method} ${show(body)}\n  ${problem}`);
        if (reply instanceof Error || reply.status !== 200 || !MUTATING.has(c.method)) {
          if (snapshot() !== before) note(`http #${i} ${c.kind}: ${c.method} ${show(body)}\n  changed stored data`);
        }
        if (snapshot() !== before) replenish();
      } else {
        const raw = rawRequest(rng);
        const reply = await send(raw.path, raw.body, raw.headers, raw.verb).catch((error: Error) => error);
        const download = raw.what === 'download query' && raw.verb === 'GET';
        const problem = reply instanceof Error ? `no answer: ${reply.message}` : reply.status === 200 ? (download ? null : 'answered 200') : judgeReply(reply);
        if (problem) note(`http #${i} ${raw.what}: ${raw.verb} ${show(raw.path)}\n  ${problem}`);
        if (snapshot() !== before) note(`http #${i} ${raw.what}\n  changed stored data`);
      }
      const alive = await send('/api/appInfo', '[]').catch((error: Error) => error);
      if (alive instanceof Error || alive.status !== 200) note(`http #${i}: the next request was not answered (appInfo: ${alive instanceof Error ? alive.message : `HTTP ${alive.status}`})`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
    expect(store.integrityCheck()).toEqual(['ok']);
  }, Math.max(120_000, HTTP_N * 1_000));
});

// Cases the series found, kept fixed: each failed before its fix.
describe('fuzz findings, fixed', () => {
  async function refusal(api: Api, method: string, args: unknown[]): Promise<ApiError> {
    const outcome = await settle(() => api.call(method, args));
    expect(outcome.error, `${method} resolved`).toBeInstanceOf(ApiError);
    return outcome.error as ApiError;
  }

  it("replaySettings with a tag named like an Object.prototype member says the run defines no such tag, not a TypeError's words", async () => {
    const runId = currentIds().realRun;
    for (const tag of ['toString', '__proto__', 'constructor', 'valueOf']) {
      const error = await refusal(bare, 'replaySettings', [runId, tag]);
      expect(error.code).toBe('INVALID_ARGUMENTS');
      expect(error.message).toBe(`run ${runId}'s config defines no env tag '${tag}' under custom_envs (defined: ${Object.keys(loadRunConfig(REAL_CONFIG).custom_envs).join(', ')})`);
    }
  });

  it('replaySettings with a line break in the tag answers one line', async () => {
    const error = await refusal(bare, 'replaySettings', [currentIds().realRun, 'a\nb']);
    expect(error.message).toContain("no env tag 'a\\nb'");
    expect(error.message).not.toMatch(/[\r\n]/);
  });

  it('a method refused for want of run control or save dialogs names itself', async () => {
    const ids = currentIds();
    const calls: Array<[string, unknown[]]> = [
      ['startRun', [{ configPath: REAL_CONFIG }]],
      ['resumeRun', [{ runId: ids.realRun, fork: true }]],
      ['startRunFromText', [{ yaml: 'trainer: {}' }]],
      ['listBackends', []],
      ['evaluateCheckpoint', [{ checkpointId: ids.checkpoints[0] }]],
      ['startSweep', [{ configPath: REAL_CONFIG, grid: [], seeds: [1], executor: 'local' }]],
      ['saveExport', [{ what: 'runs', format: 'csv', runIds: [] }]],
      ['saveCheckpointFolder', [ids.checkpoints[0]]],
    ];
    for (const [method, args] of calls) {
      const error = await refusal(bare, method, args);
      expect(error.message, method).toMatch(new RegExp(`^${method}\\b`));
      expect(error.message, method).toMatch(/run control|desktop app/);
    }
  });

  it("exportCheckpointModel of a run trained from scratch names the checkpoint and its run", async () => {
    const checkpoint = store.checkpoints.get(currentIds().checkpoints[0])!;
    const error = await refusal(bare, 'exportCheckpointModel', [{ checkpointId: checkpoint.id, merged: false, dtype: 'F32' }]);
    expect(error.code).toBe('REFUSED');
    expect(error.message).toMatch(new RegExp(`^checkpoint ${checkpoint.id} of run ${checkpoint.runId} trains TurnLab's own transformer from scratch`));
  });

  it('resimulateEpisode of an episode whose run config cannot rebuild the env names the episode', async () => {
    const { id: runId } = store.runs.create({ name: 'older-config', config: { custom_envs: {} }, seed: 1, envTags: ['x'], algorithm: 'grpo' });
    const [episodeId] = store.episodes.insert([
      { runId, iteration: 1, split: 'train', envTag: 'x', groupId: 0, envIndex: 0, seed: 1, totalReward: 0, success: false, numActions: 0, truncated: true, turns: [] },
    ]);
    const error = await refusal(bare, 'resimulateEpisode', [episodeId]);
    expect(error.message).toMatch(new RegExp(`^episode ${episodeId}: run ${runId}'s stored config cannot rebuild its environments`));
  });

  it('answers the next request on a kept-alive connection after refusing a body of several MiB', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = await send('/api/appInfo', Buffer.alloc(3 << 20, 0x20), {}, 'POST', agent);
      expect(big.status).toBe(413);
      expect(big.json?.error?.code).toBe('BODY_TOO_LARGE');
      const next = await send('/api/appInfo', '[]', {}, 'POST', agent);
      expect(next.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });
});
