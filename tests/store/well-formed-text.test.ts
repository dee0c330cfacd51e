// Text holding lone UTF-16 surrogates (a reply cut inside an emoji, a pasted name) is stored as
// valid UTF-8, each lone surrogate as U+FFFD, by every write path of the store. Checked on the
// bytes SQLite holds, read through a separate connection.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../main/store/db';
import { makeTempDir, type TempDir } from '../helpers/fixtures';

const HIGH = '\uD83E'; // the first half of 🧊, alone
const LOW = '\uDDCA'; // the second half, alone
const bad = (text: string): string => `${text} ${HIGH} ${LOW}${HIGH} 🧊`;
const good = (text: string): string => `${text} \uFFFD \uFFFD\uFFFD 🧊`;

const TEXT_COLUMNS: Record<string, string[]> = {
  runs: ['name', 'notes', 'tags', 'config', 'env_tags', 'error', 'algorithm', 'backend', 'device'],
  metrics: ['name'],
  episodes: ['env_tag'],
  turns: ['observation', 'response', 'state', 'actions', 'info'],
  checkpoints: ['path', 'metrics'],
};

let temp: TempDir;
let store: Store;
let raw: Database.Database;
let runId: number;
let episodeId: number;

beforeAll(() => {
  temp = makeTempDir();
  store = openStore(temp.dir, { create: true });
  const run = store.runs.create({
    name: bad('run'),
    config: { trainer: { experiment_name: bad('experiment') }, [bad('key')]: 1 },
    seed: 0,
    envTags: [bad('Bandit')],
    algorithm: bad('grpo'),
    backend: bad('wasm'),
    device: bad('device'),
    tags: [bad('tag')],
    notes: bad('created with notes'),
  });
  runId = run.id;
  store.runs.update(runId, { notes: bad('notes'), error: bad('error') });
  store.metrics.insert([{ runId, name: bad('train/metric'), iteration: 1, value: 1, wallTime: 1 }]);
  [episodeId] = store.episodes.insert([
    {
      runId,
      iteration: 1,
      split: 'train',
      envTag: bad('Bandit'),
      groupId: 0,
      envIndex: 0,
      seed: 1,
      totalReward: 0,
      success: false,
      numActions: 1,
      truncated: false,
      turns: [
        {
          observation: bad('observation'),
          state: { cell: bad('state') },
          response: bad('<answer>reply</answer>'),
          actions: [bad('Left')],
          numValidActions: 0,
          reward: 0,
          done: true,
          info: { note: bad('info') },
          numTokens: 3,
        },
      ],
    },
  ]);
  store.checkpoints.insert([{ runId, iteration: 1, path: bad('checkpoints/run-1/iter-1'), sizeBytes: 1, sha256: 'x', metrics: { [bad('m')]: 1 } }]);
  raw = new Database(store.file, { readonly: true });
});

afterAll(() => {
  raw.close();
  store.close();
  temp.cleanup();
});

describe('text with lone surrogates', () => {
  it.each(Object.entries(TEXT_COLUMNS))('is stored in %s as valid UTF-8 without lone surrogates', (table, columns) => {
    for (const column of columns) {
      const cells = raw.prepare(`SELECT CAST(${column} AS BLOB) AS bytes FROM ${table}`).all() as Array<{ bytes: Buffer | null }>;
      expect(cells.length, `${table}.${column}`).toBeGreaterThan(0);
      for (const { bytes } of cells) {
        expect(bytes, `${table}.${column}`).not.toBeNull();
        const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes!);
        expect(text, `${table}.${column}`).toContain('\uFFFD');
        // JSON columns: no `\udXXX` escape that would turn back into a lone surrogate.
        expect(text, `${table}.${column}`).not.toMatch(/\\ud[89a-f]/i);
      }
    }
  });

  it('reads back with U+FFFD where each lone surrogate was, and keeps whole pairs', () => {
    const run = store.runs.get(runId)!;
    expect(run.name).toBe(good('run'));
    expect(run.notes).toBe(good('notes'));
    expect(run.error).toBe(good('error'));
    expect(run.tags).toEqual([good('tag')]);
    expect(run.config).toEqual({ trainer: { experiment_name: good('experiment') }, [good('key')]: 1 });
    expect(store.metrics.names(runId)).toEqual([good('train/metric')]);
    const [turn] = store.turns.listByEpisode(episodeId);
    expect(turn.response).toBe(good('<answer>reply</answer>'));
    expect(turn.observation).toBe(good('observation'));
    expect(turn.actions).toEqual([good('Left')]);
    expect(turn.state).toEqual({ cell: good('state') });
    expect(turn.info).toEqual({ note: good('info') });
  });
});
