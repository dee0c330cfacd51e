// The README says pandas reads the exports: here it does, with its defaults, as a researcher
// would call it (`pd.read_csv(f)`, `pd.read_json(f, lines=True)`, tests/helpers/pandas_reader.py).
// Every metric, episode and turn row comes back once with the store's values, numbers as
// numbers, a NaN metric as NaN, replies with line breaks, quotes and commas whole, and the CSV and
// JSONL frames agree. pandas' CSV defaults read a reply of "NA", "nan" or "" as NaN, as
// docs/storage.md warns; its `keep_default_na=False, na_values=[""]` keeps all but the empty one,
// JSONL every one. The test skips itself with a note where python3 has no pandas.
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportColumns, exportRows, type ExportFormat, type ExportKind } from '../../main/services/export';
import { openStore, type Store } from '../../main/store/db';
import { makeTempDir, seedStore, TRICKY_TEXTS, type TempDir } from '../helpers/fixtures';
import { pythonWith } from '../helpers/python-with';

const READER = fileURLToPath(new URL('../helpers/pandas_reader.py', import.meta.url));
/** A test's skip note without pandas; the skip reporter reads it as NEEDS_PANDAS (tests/setup/requirements.ts). */
const NOTE = 'python3 with pandas not found: the exports cannot be read back with pandas';


interface Frame {
  columns: string[];
  dtypes: Record<string, string>;
  rows: unknown[][];
}

const python = pythonWith('pandas');
let temp: TempDir;
let store: Store;
let runIds: number[];
const NAN_ITERATION = 3;

async function exportFile(what: ExportKind, format: ExportFormat): Promise<string> {
  const file = join(temp.dir, `${what}.${format}`);
  const out = createWriteStream(file);
  await exportRows(store, { what, format, runIds }, out);
  await finished(out);
  return file;
}

/** Replies pandas' CSV defaults take for missing values. */
const NA_LIKE = ['NA', 'N/A', 'nan', 'null'];
const REPLIES = [...TRICKY_TEXTS, ...NA_LIKE];

function readWithPandas(format: ExportFormat | 'csv-text', file: string): Frame {
  const read = spawnSync(python!, [READER, format, file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  expect(read.stderr).toBe('');
  expect(read.status).toBe(0);
  return JSON.parse(read.stdout) as Frame;
}

/** A frame's column as an array. */
function column(frame: Frame, name: string): unknown[] {
  const index = frame.columns.indexOf(name);
  expect(index, `column ${name}`).toBeGreaterThanOrEqual(0);
  return frame.rows.map((row) => row[index]);
}

function storedRows(sql: string): Array<Record<string, unknown>> {
  const raw = new Database(store.file, { readonly: true });
  try {
    return raw.prepare(sql).all(...runIds) as Array<Record<string, unknown>>;
  } finally {
    raw.close();
  }
}

beforeAll(() => {
  if (!python) return;
  temp = makeTempDir();
  store = openStore(temp.dir, { create: true });
  runIds = seedStore(store, { iterations: 4, groups: 2, groupSize: 2 }).map((seeded) => seeded.run.id);
  store.metrics.insert([{ runId: runIds[0], name: 'edge/nan', iteration: NAN_ITERATION, value: Number.NaN, wallTime: 1_735_689_600_000 }]);
  store.episodes.insert([
    {
      runId: runIds[0],
      iteration: 50,
      split: 'train',
      envTag: 'bandit',
      groupId: 0,
      envIndex: 0,
      seed: 1,
      totalReward: 0.5,
      success: false,
      numActions: 1,
      truncated: false,
      turns: REPLIES.map((response, i) => ({
        observation: `Turn ${i}:\r\n${response}`,
        state: { note: response },
        response,
        actions: ['Left'],
        numValidActions: 1,
        reward: 0.5,
        done: i === REPLIES.length - 1,
        info: {},
        numTokens: 3,
      })),
    },
  ]);
});

afterAll(() => {
  store?.close();
  temp?.cleanup();
});

describe('exports read back by pandas with its defaults', () => {
  it('reads the metrics CSV and JSONL as the store holds them, numbers as numbers and a NaN as NaN', async (ctx) => {
    if (!python) ctx.skip(NOTE);
    const stored = storedRows(
      `SELECT m.run_id, r.name AS run_name, m.name, m.iteration, m.value, m.wall_time FROM metrics m JOIN runs r ON r.id = m.run_id
       WHERE m.run_id IN (${runIds.map(() => '?').join(',')}) ORDER BY m.run_id, m.name, m.iteration`,
    );
    const csv = readWithPandas('csv', await exportFile('metrics', 'csv'));
    const jsonl = readWithPandas('jsonl', await exportFile('metrics', 'jsonl'));
    for (const frame of [csv, jsonl]) {
      expect(frame.columns).toEqual(exportColumns('metrics'));
      expect(frame.rows).toHaveLength(stored.length);
      expect(frame.dtypes).toMatchObject({ run_id: 'int64', iteration: 'int64', value: 'float64', run_name: 'object', name: 'object' });
      const key = (row: { run_id: unknown; name: unknown; iteration: unknown }) => `${row.run_id} ${row.name} ${row.iteration}`;
      const read = new Map(frame.rows.map((_, i) => [key({ run_id: column(frame, 'run_id')[i], name: column(frame, 'name')[i], iteration: column(frame, 'iteration')[i] }), i]));
      for (const row of stored) {
        const i = read.get(key(row as never));
        expect(i, key(row as never)).toBeDefined();
        expect(column(frame, 'run_name')[i!]).toBe(row.run_name);
        if (row.value === null) expect(column(frame, 'value')[i!]).toBeNull();
        else expect(column(frame, 'value')[i!] as number).toBeCloseTo(row.value as number, 12);
      }
    }
    expect(column(csv, 'value').filter((v) => v === null)).toHaveLength(stored.filter((row) => row.value === null).length);
    expect(csv.dtypes.wall_time).toBe('float64');
    // read_json makes a column named *_time a date: the milliseconds since 1970 read as the right instant.
    expect(jsonl.dtypes.wall_time).toMatch(/^datetime64/);
    const first = stored[0];
    const at = column(jsonl, 'wall_time')[0] as { datetime: string };
    expect(Date.parse(`${at.datetime}Z`)).toBe(Math.trunc(first.wall_time as number));
  });

  it('reads every turn once, replies with line breaks, quotes and commas whole, the same from CSV and JSONL', async (ctx) => {
    if (!python) ctx.skip(NOTE);
    const stored = storedRows(
      `SELECT t.id, t.response, t.reward, e.iteration FROM turns t JOIN episodes e ON e.id = t.episode_id
       WHERE e.run_id IN (${runIds.map(() => '?').join(',')}) ORDER BY t.id`,
    );
    expect(stored.filter((row) => row.iteration === 50).map((row) => row.response)).toEqual(REPLIES);
    const csvFile = await exportFile('turns', 'csv');
    const frames = { csv: readWithPandas('csv', csvFile), 'csv-text': readWithPandas('csv-text', csvFile), jsonl: readWithPandas('jsonl', await exportFile('turns', 'jsonl')) };
    /** What each reading gives for a reply: pandas' missing-value words and the empty reply as NaN in CSV. */
    const expected = {
      csv: (reply: string) => (reply === '' || NA_LIKE.includes(reply) ? null : reply),
      'csv-text': (reply: string) => (reply === '' ? null : reply),
      jsonl: (reply: string) => reply,
    };
    for (const [reading, frame] of Object.entries(frames) as Array<[keyof typeof frames, Frame]>) {
      expect(frame.columns).toEqual(exportColumns('turns'));
      expect(frame.dtypes).toMatchObject({ id: 'int64', run_id: 'int64', iteration: 'int64', reward: 'float64' });
      expect((column(frame, 'id') as number[]).sort((a, b) => a - b)).toEqual(stored.map((row) => row.id));
      const byId = new Map(column(frame, 'id').map((id, i) => [id, i]));
      for (const row of stored) {
        const i = byId.get(row.id)!;
        expect(column(frame, 'response')[i], `${reading}, turn ${row.id}`).toBe(expected[reading](row.response as string));
        expect(column(frame, 'reward')[i] as number).toBeCloseTo(row.reward as number, 12);
      }
    }
    // The JSON columns: text holding JSON in CSV (json.loads gives the object), the object itself in JSONL.
    expect(JSON.parse(column(frames.csv, 'state')[0] as string)).toEqual(column(frames.jsonl, 'state')[0]);
  });

  it('reads the episodes with their booleans and run names', async (ctx) => {
    if (!python) ctx.skip(NOTE);
    const stored = storedRows(
      `SELECT e.id, e.success, e.total_reward FROM episodes e WHERE e.run_id IN (${runIds.map(() => '?').join(',')}) ORDER BY e.id`,
    );
    for (const format of ['csv', 'jsonl'] as const) {
      const frame = readWithPandas(format, await exportFile('episodes', format));
      expect(frame.columns).toEqual(exportColumns('episodes'));
      expect(frame.rows).toHaveLength(stored.length);
      expect(frame.dtypes).toMatchObject({ id: 'int64', success: 'bool', total_reward: 'float64', run_name: 'object' });
      const byId = new Map(column(frame, 'id').map((id, i) => [id, i]));
      for (const row of stored) expect(column(frame, 'success')[byId.get(row.id)!], `episode ${row.id}`).toBe(row.success === 1);
    }
  });
});
