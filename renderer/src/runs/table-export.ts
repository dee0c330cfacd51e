// "Export the table": the Runs table as filtered and sorted, with its added config and metric
// columns, for a spreadsheet or pandas (W&B's runs-table CSV). Unlike the store's `runs` export
// (every column of the runs table, the config as one JSON text, times in epoch milliseconds),
// each config key is a column of its own and times are ISO 8601.
import { stringify } from 'csv-stringify/browser/esm/sync';
import { RUN_PAGE_MAX_LIMIT, type RunPageQueryDto, type RunRowDto } from '../../../preload/contract';
import { totalIterationsOf } from '../stores/run-settings';
import { jsonLine } from '../../../preload/json-line';

export const TABLE_FIXED_COLUMNS = [
  'id', 'name', 'status', 'env_tags', 'algorithm', 'seed', 'iterations', 'total_iterations', 'best_val_success', 'created',
  'parent_run_id', 'parent_iteration', 'tags', 'notes',
] as const;

type Cell = string | number | boolean | null;

function cell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  // A list or map as a config value: as YAML's flow form would read it back.
  return JSON.stringify(value);
}

/** One record per run, keyed by the fixed columns and then the table's column keys as written. */
export function tableRecords(rows: readonly RunRowDto[], columns: readonly string[]): Array<Record<string, Cell>> {
  return rows.map((run) => {
    const record: Record<string, Cell> = {
      id: run.id,
      name: run.name,
      status: run.status,
      env_tags: run.envTags.join('; '),
      algorithm: run.algorithm,
      seed: run.seed,
      iterations: run.iterations,
      total_iterations: totalIterationsOf(run.config),
      best_val_success: run.bestValSuccess,
      created: new Date(run.createdAt).toISOString(),
      parent_run_id: run.parentRunId,
      parent_iteration: run.parentIteration,
      tags: run.tags.join('; '),
      notes: run.notes,
    };
    columns.forEach((key, i) => (record[key] = cell(run.columnValues?.[i])));
    return record;
  });
}

/** RFC 4180 with a header; an empty field is a missing value. */
export function tableCsv(records: ReadonlyArray<Record<string, Cell>>, columns: readonly string[]): string {
  return stringify(records as Array<Record<string, Cell>>, {
    header: true,
    columns: [...TABLE_FIXED_COLUMNS, ...columns],
    record_delimiter: 'windows',
    quoted_match: /[\r\n]/,
    cast: { boolean: (value) => (value ? 'true' : 'false') },
  });
}

export function tableJsonl(records: ReadonlyArray<Record<string, Cell>>): string {
  return records.map((record) => `${jsonLine(record)}\n`).join('');
}

/** Every row the query matches (not only the page shown), or only `runIds` when some are selected. */
export async function allTableRows(
  runPage: (query: RunPageQueryDto) => Promise<{ rows: RunRowDto[]; total: number }>,
  query: RunPageQueryDto,
  runIds: readonly number[],
): Promise<RunRowDto[]> {
  const rows: RunRowDto[] = [];
  for (let offset = 0; ; offset += RUN_PAGE_MAX_LIMIT) {
    const page = await runPage({ ...query, offset, limit: RUN_PAGE_MAX_LIMIT, withChoices: false });
    rows.push(...page.rows);
    if (page.rows.length === 0 || rows.length >= page.total) break;
  }
  const wanted = new Set(runIds);
  return wanted.size === 0 ? rows : rows.filter((run) => wanted.has(run.id));
}
