import { PassThrough, Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportColumns, exportRows, type ExportFormat, type ExportKind } from '../../main/services/export';
import { RAGEN_PREFIX_SINCE } from '../../main/services/response-prefix';
import { openStore, type Store } from '../../main/store/db';
import { makeTempDir, seedStore, TRICKY_TEXTS, type TempDir } from '../helpers/fixtures';

const JSON_COLUMNS = new Set(['config', 'env_tags', 'tags', 'state', 'actions', 'info', 'metrics']);
const BOOL_COLUMNS = new Set(['success', 'truncated', 'filtered_out', 'done']);

/** What the database holds, read with SQL written here rather than by the code under test. */
const EXPECTED_SQL: Record<ExportKind, string> = {
  runs: 'SELECT * FROM runs ORDER BY id',
  metrics: `SELECT m.run_id, r.name AS run_name, m.name, m.iteration, m.value, m.wall_time
            FROM metrics m JOIN runs r ON r.id = m.run_id ORDER BY m.run_id, m.name, m.iteration`,
  // A run's own episodes: an evaluation's (evaluation_id set) are not the run's to export.
  episodes: `SELECT e.id, e.run_id, r.name AS run_name, e.iteration, e.split, e.env_tag, e.group_id, e.env_index, e.seed, e.total_reward,
               e.success, e.num_turns, e.num_actions, e.truncated, e.filtered_out, e.evaluation_id
             FROM episodes e JOIN runs r ON r.id = e.run_id WHERE e.evaluation_id IS NULL ORDER BY e.run_id, e.id`,
  turns: `SELECT t.*, e.run_id, r.name AS run_name, e.iteration, e.split, e.env_tag, e.group_id, e.env_index, e.evaluation_id
          FROM turns t JOIN episodes e ON e.id = t.episode_id JOIN runs r ON r.id = e.run_id
          WHERE e.evaluation_id IS NULL ORDER BY e.run_id, e.id, t.turn_index`,
  logs: `SELECT l.run_id, r.name AS run_name, l.id, l.at, l.line FROM run_logs l JOIN runs r ON r.id = l.run_id ORDER BY l.run_id, l.id`,
};

let temp: TempDir;
let store: Store;
let runIds: number[];
let raw: Database.Database;

function decodeDbRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (value === null) out[key] = null;
    else if (JSON_COLUMNS.has(key)) out[key] = JSON.parse(value as string);
    else if (BOOL_COLUMNS.has(key)) out[key] = value === 1;
    else out[key] = value;
  }
  return out;
}

/** Columns the store derives from other tables (migration 0007's, kept by triggers): not exported. */
const DERIVED = new Set(['last_iteration', 'best_val_success']);

function expected(what: ExportKind): Array<Record<string, unknown>> {
  const rows = raw.prepare(EXPECTED_SQL[what]).all() as Array<Record<string, unknown>>;
  return rows.map((row) => decodeDbRow(Object.fromEntries(Object.entries(row).filter(([key]) => what !== 'runs' || !DERIVED.has(key)))));
}

/**
 * What an export gives: the stored rows, and each turn the tag its run's prompts opened the
 * reply with (the fixture's configs leave the template out, RAGEN's, and its runs are dated 2025,
 * before that template opened replies with `<think>`: none).
 */
function exported(what: ExportKind): Array<Record<string, unknown>> {
  const rows = expected(what);
  return what === 'turns' ? rows.map((row) => ({ ...row, response_prefix: '' })) : rows;
}

async function exportText(what: ExportKind, format: ExportFormat, ids = runIds): Promise<string> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  await exportRows(store, { what, format, runIds: ids }, sink);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * CSV fields back to values: an unquoted empty field is NULL, a quoted one the empty string;
 * numbers where the database holds numbers.
 */
function parseCsv(text: string, expectedRows: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const numeric = new Set(
    Object.keys(expectedRows[0]).filter((key) => expectedRows.some((row) => typeof row[key] === 'number')),
  );
  const records = parse(text, {
    columns: true,
    cast: (value, context) => {
      if (context.header) return value;
      if (value === '' && !context.quoting) return null;
      const column = String(context.column);
      if (JSON_COLUMNS.has(column)) return JSON.parse(value);
      if (BOOL_COLUMNS.has(column)) return value === 'true';
      if (numeric.has(column)) return Number(value);
      return value;
    },
  }) as Array<Record<string, unknown>>;
  return records;
}

beforeAll(() => {
  temp = makeTempDir();
  store = openStore(temp.dir, { create: true });
  const seeded = seedStore(store, { iterations: 8, groups: 4, groupSize: 8 });
  runIds = seeded.map((s) => s.run.id);
  // Log lines, the troublesome strings among them (a line break, quotes, a lone surrogate).
  for (const id of runIds) store.logs.append(id, [`backend: wasm for run ${id}`, ...TRICKY_TEXTS], 1_735_689_600_000 + id);
  // One episode whose every text field is one of the troublesome strings.
  store.episodes.insert([
    {
      runId: runIds[1],
      iteration: 99,
      split: 'val',
      envTag: 'sokoban',
      groupId: 0,
      envIndex: 0,
      seed: 3,
      totalReward: -0.30000000000000004,
      success: false,
      numActions: 0,
      truncated: true,
      turns: TRICKY_TEXTS.map((text, i) => ({
        observation: text,
        state: i % 2 ? null : { text, nested: [text, 1.5e-12] },
        response: text,
        actions: [text],
        numValidActions: 0,
        reward: -0.1,
        done: i === TRICKY_TEXTS.length - 1,
        info: { why: text },
        numTokens: text.length,
        logprobSum: i % 3 ? null : -1 / 3,
        advantageMean: 2 ** -40,
      })),
    },
  ]);
  store.runs.update(runIds[2], { notes: TRICKY_TEXTS.join(' | '), tags: TRICKY_TEXTS });
  raw = new Database(store.file, { readonly: true });
});

afterAll(() => {
  raw.close();
  store.close();
  temp.cleanup();
});

describe.each(['runs', 'metrics', 'episodes', 'turns', 'logs'] as const)('export of %s', (what) => {
  it('round-trips through CSV (RFC 4180: header, CRLF, quoted fields)', async () => {
    const text = await exportText(what, 'csv');
    const rows = exported(what);
    expect(text.split('\r\n', 1)[0]).toBe(exportColumns(what).join(','));
    expect(text.endsWith('\r\n')).toBe(true);
    expect(parseCsv(text, rows)).toEqual(rows);
  });

  it('round-trips through JSONL, one object per line', async () => {
    const text = await exportText(what, 'jsonl');
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    const rows = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows).toEqual(exported(what));
    expect(Object.keys(rows[0])).toEqual(exportColumns(what));
  });
});

describe('export', () => {
  it('carries every troublesome response through CSV unchanged', async () => {
    const rows = exported('turns').filter((r) => r.run_id === runIds[1]);
    const parsed = parseCsv(await exportText('turns', 'csv', [runIds[1]]), rows);
    expect(parsed).toEqual(rows);
    const responses = parsed.filter((r) => r.iteration === 99).map((r) => r.response);
    expect(responses).toEqual(TRICKY_TEXTS);
  });

  it("gives each turn the tag its run's prompts opened the reply with", async () => {
    const answerOnly = store.runs.create({ name: 'answers', config: { agent_proxy: { template: 'compact', enable_think: false } }, seed: 0, envTags: ['Bandit'], algorithm: 'grpo' });
    store.episodes.insert([
      {
        runId: answerOnly.id, iteration: 1, split: 'train', envTag: 'Bandit', groupId: 0, envIndex: 0, seed: 0, totalReward: 1, success: true, numTurns: 1, numActions: 1, truncated: false,
        turns: [{ observation: 'o', state: null, response: 'Dragon</answer>', actions: ['Dragon'], numValidActions: 1, reward: 1, done: true, info: {}, numTokens: 2, logprobSum: -1, advantageMean: 0.5 }],
      },
    ]);
    const rows = (await exportText('turns', 'jsonl', [answerOnly.id, runIds[0]])).trim().split('\n').map((line) => JSON.parse(line) as { run_id: number; response: string; response_prefix: string });
    expect(rows[0]).toMatchObject({ run_id: answerOnly.id, response: 'Dragon</answer>', response_prefix: '<answer>' });
    expect(new Set(rows.slice(1).map((r) => r.response_prefix))).toEqual(new Set(['']));
    // The other tests compare the whole store's rows with the export of the fixture's runs.
    store.runs.delete(answerOnly.id);
  });

  it('gives no prefix to the turns of a ragen run created before that template opened replies with <think>', async () => {
    const turn = { observation: 'o', state: null, response: 'Up</answer>', actions: ['Up'], numValidActions: 1, reward: 1, done: true, info: {}, numTokens: 2, logprobSum: -1, advantageMean: 0.5 };
    const runs = [RAGEN_PREFIX_SINCE - 1, RAGEN_PREFIX_SINCE].map((createdAt) =>
      store.runs.create({ name: `ragen ${createdAt}`, createdAt, config: { agent_proxy: { template: 'ragen', enable_think: true } }, seed: 0, envTags: ['Bandit'], algorithm: 'grpo' }),
    );
    for (const run of runs) {
      store.episodes.insert([{ runId: run.id, iteration: 1, split: 'train', envTag: 'Bandit', groupId: 0, envIndex: 0, seed: 0, totalReward: 1, success: true, numTurns: 1, numActions: 1, truncated: false, turns: [turn] }]);
    }
    const rows = (await exportText('turns', 'jsonl', runs.map((r) => r.id))).trim().split('\n').map((line) => JSON.parse(line) as { response_prefix: string });
    expect(rows.map((r) => r.response_prefix)).toEqual(['', '<think>']);
    for (const run of runs) store.runs.delete(run.id);
  });

  it("keeps each JSONL record one line where Python's splitlines() also breaks (U+2028, U+2029, NEL)", async () => {
    for (const what of ['turns', 'logs', 'runs'] as const) {
      const text = await exportText(what, 'jsonl');
      // The line ends of Python's str.splitlines(), control characters among them.
      // eslint-disable-next-line no-control-regex
      const lines = text.split(/\r\n|[\n\v\f\r\x1c-\x1e\x85\u2028\u2029]/);
      expect(lines.pop()).toBe('');
      expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual(exported(what));
    }
  });

  it('keeps an infinite metric infinite in JSONL (1e999), apart from a NaN (null), as CSV does', async () => {
    const run = store.runs.create({ name: 'diverged', config: {}, seed: 0, envTags: [], algorithm: 'grpo' });
    const at = 1_735_689_600_000;
    store.metrics.insert([
      { runId: run.id, name: 'actor/grad_norm', iteration: 1, value: Infinity, wallTime: at },
      { runId: run.id, name: 'actor/grad_norm', iteration: 2, value: -Infinity, wallTime: at },
      { runId: run.id, name: 'actor/grad_norm', iteration: 3, value: Number.NaN, wallTime: at },
    ]);
    try {
      const jsonl = await exportText('metrics', 'jsonl', [run.id]);
      const values = jsonl.trim().split('\n').map((line) => (JSON.parse(line) as { value: number | null }).value);
      expect(values).toEqual([Infinity, -Infinity, null]);
      expect(jsonl).not.toMatch(/Infinity|NaN/);
      const csv = parse(await exportText('metrics', 'csv', [run.id]), { columns: true }) as Array<{ value: string }>;
      expect(csv.map((r) => r.value)).toEqual(['Infinity', '-Infinity', '']);
    } finally {
      store.runs.delete(run.id);
    }
  });

  it('writes only the header for runs with nothing to export', async () => {
    const empty = store.runs.create({ name: 'empty', config: {}, seed: 0, envTags: [], algorithm: 'ppo' });
    const sink = new PassThrough();
    let text = '';
    sink.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const { rows } = await exportRows(store, { what: 'turns', format: 'csv', runIds: [empty.id] }, sink);
    expect(rows).toBe(0);
    expect(text).toBe(`${exportColumns('turns').join(',')}\r\n`);
    store.runs.delete(empty.id);
  });

  it('pages through the database without losing or repeating rows at page edges', () => {
    const metrics = expected('metrics');
    const episodes = expected('episodes');
    const turns = expected('turns');
    for (const pageSize of [1, 7]) {
      expect([...store.metrics.exportRows(runIds, pageSize)]).toEqual(metrics);
      expect([...store.episodes.exportRows(runIds, pageSize)]).toEqual(episodes);
      expect([...store.turns.exportRows(runIds, pageSize)]).toEqual(turns);
    }
  });

  it('reads rows only as fast as a slow consumer takes them', async () => {
    const total = expected('turns').length;
    expect(total).toBeGreaterThan(1000);
    let pulled = 0;
    const original = store.turns.exportRows.bind(store.turns);
    store.turns.exportRows = function* (ids: number[]) {
      for (const row of original(ids, 100)) {
        pulled++;
        yield row;
      }
    };
    let written = 0;
    let maxAhead = 0;
    const slow = new Writable({
      highWaterMark: 4096,
      write(chunk: Buffer, _encoding, done) {
        for (const byte of chunk) if (byte === 0x0a) written++;
        maxAhead = Math.max(maxAhead, pulled - written);
        setImmediate(done);
      },
    });
    try {
      const { rows } = await exportRows(store, { what: 'turns', format: 'jsonl', runIds }, slow, { chunkRows: 10 });
      expect(rows).toBe(total);
    } finally {
      store.turns.exportRows = original;
    }
    expect(written).toBe(total);
    // Bounded by a few 10-row chunks in the stream buffers, not by the size of the export.
    expect(maxAhead).toBeLessThan(200);
  });
});
