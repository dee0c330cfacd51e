// The CSV export read back by a strict RFC 4180 reader that is not the one the export uses:
// Python's `csv` module (python3 is on every machine TurnLab builds on). csv-parse, the
// export's own parser, accepts a lone \n or \r inside an unquoted field; spreadsheet imports,
// pandas and Python split the row there instead.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportColumns, exportRows } from '../../main/services/export';
import { openStore, type Store } from '../../main/store/db';
import type { PlotLine } from '../../renderer/src/compare/plot';
import { PLOT_CSV_COLUMNS, plotToCsv } from '../../renderer/src/compare/plot-csv';
import { makeTempDir, seedStore, type TempDir } from '../helpers/fixtures';

/** Replies that each need quoting: lone LF, lone CR, CRLF, quotes, commas, and mixes of them. */
const REPLIES = [
  'first line\nsecond line',
  'first line\rsecond line',
  'first line\r\nsecond line',
  '\nstarts with a line feed',
  'ends with a carriage return\r',
  'say "left", then "up"',
  'Left, Up',
  '\r\n\r\r\n\n',
  'a "quoted\nreply", split\rthree ways',
  'plain reply',
];

const READER = `
import csv, json, sys
with open(sys.argv[1], newline='', encoding='utf-8') as f:
    rows = list(csv.reader(f, strict=True))
json.dump(rows, sys.stdout)
`;

const JSON_COLUMNS = new Set(['state', 'actions', 'info']);
const BOOL_COLUMNS = new Set(['done']);

let temp: TempDir;
let store: Store;
let runId: number;

/** A database value as the CSV writes it: NULL empty, JSON as text, booleans as words. */
function csvText(column: string, value: unknown): string {
  if (value === null) return '';
  if (JSON_COLUMNS.has(column)) return JSON.stringify(JSON.parse(value as string));
  if (BOOL_COLUMNS.has(column)) return value === 1 ? 'true' : 'false';
  return String(value);
}

/** The rows Python's csv module reads from `file`, header first. */
function readWithPython(file: string): string[][] {
  const python = spawnSync('python3', ['-c', READER, file], { encoding: 'utf8' });
  expect(python.stderr).toBe('');
  expect(python.status).toBe(0);
  return JSON.parse(python.stdout) as string[][];
}

beforeAll(() => {
  temp = makeTempDir();
  store = openStore(temp.dir, { create: true });
  runId = seedStore(store, { iterations: 2, groups: 2, groupSize: 2 })[0].run.id;
  store.episodes.insert([
    {
      runId,
      iteration: 50,
      split: 'train',
      envTag: 'bandit',
      groupId: 0,
      envIndex: 0,
      seed: 1,
      totalReward: 0,
      success: false,
      numActions: 0,
      truncated: false,
      turns: REPLIES.map((response, i) => ({
        observation: `Turn ${i}:\r\nState:\n${response}`,
        state: { note: response },
        response,
        actions: [response],
        numValidActions: 0,
        reward: 0,
        done: i === REPLIES.length - 1,
        info: {},
        numTokens: 1,
      })),
    },
  ]);
});

afterAll(() => {
  store.close();
  temp.cleanup();
});

describe('CSV export read by a strict reader (Python csv)', () => {
  it('gives back every turn as one row with its fields unchanged', async () => {
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (chunk: Buffer) => chunks.push(chunk));
    await exportRows(store, { what: 'turns', format: 'csv', runIds: [runId] }, sink);
    const file = join(temp.dir, 'turns.csv');
    writeFileSync(file, Buffer.concat(chunks));

    const [header, ...rows] = readWithPython(file);
    const columns = exportColumns('turns');
    expect(header).toEqual(columns);

    const raw = new Database(store.file, { readonly: true });
    const stored = raw
      .prepare(
        // The run's config leaves the template out, RAGEN's, and it is dated 2025, before that template opened replies with <think>.
        `SELECT t.*, e.run_id, r.name AS run_name, e.iteration, e.split, e.env_tag, e.group_id, e.env_index, e.evaluation_id, '' AS response_prefix
         FROM turns t JOIN episodes e ON e.id = t.episode_id JOIN runs r ON r.id = e.run_id WHERE e.run_id = ? ORDER BY e.id, t.turn_index`,
      )
      .all(runId) as Array<Record<string, unknown>>;
    raw.close();
    expect(rows).toHaveLength(stored.length);
    expect(rows).toEqual(stored.map((row) => columns.map((column) => csvText(column, row[column]))));
    const responses = rows.filter((row) => row[columns.indexOf('iteration')] === '50').map((row) => row[columns.indexOf('response')]);
    expect(responses).toEqual(REPLIES);
  });

  it('reads "Export what is plotted" of runs named with line breaks, quotes and commas one row per point', () => {
    const lines: PlotLine[] = REPLIES.map((label, i) => ({
      id: `run-${i}`,
      label,
      kind: 'run',
      runIds: [i + 1],
      member: false,
      iteration: [1, 2],
      x: [1, 2],
      y: [0.5, null],
    }));
    const file = join(temp.dir, 'plot.csv');
    writeFileSync(file, plotToCsv('val/success', 'iteration', lines));
    const [header, ...rows] = readWithPython(file);
    expect(header).toEqual([...PLOT_CSV_COLUMNS]);
    expect(rows).toHaveLength(REPLIES.length * 2);
    expect(rows.map((row) => row[PLOT_CSV_COLUMNS.indexOf('series')])).toEqual(REPLIES.flatMap((label) => [label, label]));
    expect(rows.map((row) => row[PLOT_CSV_COLUMNS.indexOf('value')])).toEqual(REPLIES.flatMap(() => ['0.5', '']));
  });
});
