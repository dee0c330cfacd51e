import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Options as CsvOptions, stringify as StringifyCsv } from 'csv-stringify/sync';
import { EPISODE_EXPORT_COLUMNS, LOG_EXPORT_COLUMNS, METRIC_EXPORT_COLUMNS, RUN_COLUMNS, TURN_EXPORT_COLUMNS, type Column } from '../store/columns';
import type { Store } from '../store/db';
import { StoreError } from '../store/errors';
import type { EvaluationRecord, ExportRow } from '../store/types';
import { storedResponsePrefix } from './response-prefix';
import { jsonLine } from '../../preload/json-line';

export const EXPORT_KINDS = ['runs', 'metrics', 'episodes', 'turns', 'logs'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportRequest {
  what: ExportKind;
  format: ExportFormat;
  /** Runs to export, in this order. */
  runIds: number[];
  /** The episodes or turns of this evaluation (`turnlab eval`) of the one run instead of the run's own. */
  evaluationId?: number;
}

/**
 * A turn's `response` is what the model wrote; the prompt had opened the reply with the
 * template's tag (`<think>`, or `<answer>` without thinking), which a reader of the export needs
 * to see the reply as the parser read it.
 */
const RESPONSE_PREFIX: Column = { name: 'response_prefix', kind: 'text' };

const COLUMNS: Record<ExportKind, Column[]> = {
  runs: RUN_COLUMNS,
  metrics: METRIC_EXPORT_COLUMNS,
  episodes: EPISODE_EXPORT_COLUMNS,
  turns: [...TURN_EXPORT_COLUMNS, RESPONSE_PREFIX],
  logs: LOG_EXPORT_COLUMNS,
};

function* withResponsePrefix(rows: Iterable<ExportRow>, prefixes: ReadonlyMap<number, string>): Generator<ExportRow> {
  for (const row of rows) yield { ...row, [RESPONSE_PREFIX.name]: prefixes.get(row.run_id as number) ?? '' };
}

/** The evaluation an export asks for, refused unless it is one of the run's and the export is of episodes or turns. */
export function evaluationToExport(store: Store, request: ExportRequest): EvaluationRecord {
  const evaluation = store.evaluations.get(request.evaluationId!);
  if (!evaluation) throw new StoreError('INVALID_INPUT', `no evaluation ${request.evaluationId} (turnlab show <run> lists a run's evaluations by id)`);
  if (request.what !== 'episodes' && request.what !== 'turns') {
    throw new StoreError('INVALID_INPUT', `an evaluation's export is of its episodes or turns (--what episodes or --what turns), not ${request.what}`);
  }
  if (request.runIds.length !== 1 || request.runIds[0] !== evaluation.runId) {
    throw new StoreError('INVALID_INPUT', `evaluation ${evaluation.id} is of run ${evaluation.runId}: give that run alone with --evaluation ${evaluation.id}`);
  }
  return evaluation;
}

/** The columns (CSV header) and keys (JSONL) of an export, in order. */
export function exportColumns(what: ExportKind): string[] {
  return COLUMNS[what].map((c) => c.name);
}

function rowsOf(store: Store, request: ExportRequest, prefixes: ReadonlyMap<number, string>): Iterable<ExportRow> {
  switch (request.what) {
    case 'runs':
      return store.runs.exportRows(request.runIds);
    case 'metrics':
      return store.metrics.exportRows(request.runIds);
    case 'episodes':
      return store.episodes.exportRows(request.runIds, undefined, request.evaluationId ?? null);
    case 'turns':
      return withResponsePrefix(store.turns.exportRows(request.runIds, undefined, request.evaluationId ?? null), prefixes);
    case 'logs':
      return store.logs.exportRows(request.runIds);
  }
}

/**
 * RFC 4180 CSV: CRLF line ends, fields quoted when they hold quotes, commas or line breaks.
 * csv-stringify quotes only fields holding the record delimiter (CRLF) itself, so a lone CR or
 * LF would be written bare and split the row for strict readers (Python's csv, spreadsheets):
 * `quoted_match` quotes those too.
 * JSON columns are written as JSON text, booleans as true/false. A NULL is an empty field and
 * an empty string a quoted empty field (`""`), so the two stay apart on the way back.
 */
function csvFormatter(what: ExportKind, stringifyCsv: typeof StringifyCsv): (rows: ExportRow[], first: boolean) => string {
  const columns = exportColumns(what);
  const options: CsvOptions = {
    columns,
    record_delimiter: 'windows',
    quoted_match: /[\r\n]/,
    cast: {
      boolean: (value) => (value ? 'true' : 'false'),
      object: (value) => JSON.stringify(value),
      string: (value) => (value === '' ? { value: '', quoted_empty: true } : value),
    },
  };
  return (rows, first) => stringifyCsv(rows, { ...options, header: first });
}

function jsonlFormatter(rows: ExportRow[]): string {
  let text = '';
  for (const row of rows) text += `${jsonLine(row)}\n`;
  return text;
}

/** Rows in arrays of `size`: streams move chunks, not single rows, which is far cheaper. */
function* chunked<T>(rows: Iterable<T>, size: number): Generator<T[]> {
  let chunk: T[] = [];
  for (const row of rows) {
    chunk.push(row);
    if (chunk.length >= size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length) yield chunk;
}

/**
 * Streams the rows of `request` to `out` as CSV or JSONL. Rows are read a page at a time and
 * pulled only as fast as `out` drains, so memory stays flat however many turns there are.
 * Every page comes from one read snapshot: a run deleted or written meanwhile (by any process)
 * exports as it stood when the export began, and a run already gone then is refused by name.
 * `end: false` leaves `out` open (e.g. process.stdout). Resolves with the number of rows.
 */
export async function exportRows(
  store: Store,
  request: ExportRequest,
  out: Writable,
  options: { end?: boolean; chunkRows?: number } = {},
): Promise<{ rows: number }> {
  let rows = 0;
  let first = true;
  const csv =
    request.format === 'csv'
      ? csvFormatter(request.what, (await import('csv-stringify/sync')).stringify)
      : undefined;
  const format = (chunk: ExportRow[]): string => {
    const text = csv ? csv(chunk, first) : jsonlFormatter(chunk);
    first = false;
    rows += chunk.length;
    return text;
  };
  const snapshot = store.openSnapshot();
  const prefixes = new Map<number, string>();
  try {
    for (const runId of request.runIds) {
      const run = snapshot.store.runs.get(runId);
      if (!run) {
        throw new StoreError('RUN_NOT_FOUND', `run ${runId} was deleted before its export began; nothing was exported`);
      }
      prefixes.set(runId, storedResponsePrefix(run.config, run.createdAt));
    }
    if (request.evaluationId !== undefined) {
      const evaluation = evaluationToExport(snapshot.store, request);
      // Its episodes were played with the evaluation's config, at the evaluation's time.
      prefixes.set(evaluation.runId, storedResponsePrefix(evaluation.config, evaluation.createdAt));
    }
  } catch (error) {
    snapshot.end();
    throw error;
  }
  const source = Readable.from(chunked(rowsOf(snapshot.store, request, prefixes), options.chunkRows ?? 200), {
    objectMode: true,
    highWaterMark: 1,
  });
  const formatter = new Transform({
    writableObjectMode: true,
    writableHighWaterMark: 1,
    transform(chunk: ExportRow[], _encoding, done) {
      done(null, format(chunk));
    },
    flush(done) {
      // A CSV export with no rows still has its header.
      done(null, csv && first ? csv([], true) : undefined);
    },
  });
  try {
    await pipeline(source, formatter, out, { end: options.end ?? true });
  } finally {
    snapshot.end();
  }
  return { rows };
}
