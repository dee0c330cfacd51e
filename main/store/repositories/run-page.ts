// The Runs table a page at a time: filters, sort and cut in SQL over the runs table alone
// (last_iteration and best_val_success are columns since migration 0007), returning only what a
// row shows. At 10,000 runs the whole list with configs took seconds to build, send and parse.
import type Database from 'better-sqlite3';
import { distance } from 'fastest-levenshtein';
import { closestName, policyFirst } from '../../../trainer-core';
import {
  COLLAPSE_METRIC,
  METRIC_COLUMN_PREFIX,
  RUN_COLUMN_KEY,
  RUN_CONDITION_FIELDS,
  RUN_CONDITION_LIST_FIELDS,
  RUN_CONDITION_OPS,
  RUN_PAGE_MAX_LIMIT,
  type RunConditionDto,
  type RunFilterChoicesDto,
  type RunPageDto,
  type RunPageQueryDto,
  type RunRowDto,
  type RunSortKeyDto,
  type UnknownRunColumnDto,
} from '../../../preload/contract';
import { flattenConfig } from '../../../preload/config-diff';
import { SEED_GROUP_PREFIX } from '../../../preload/seed-list';
import { sweepOf } from '../../../preload/sweep-plan';

type SqlParams = Record<string, string | number>;

export const RUN_PAGE_DEFAULT_LIMIT = 200;
export { RUN_PAGE_MAX_LIMIT };

/** A metric's last logged value for the row's run (a seek on the metrics key). */
const lastMetric = (param: string) => `(SELECT value FROM metrics WHERE run_id = runs.id AND name = @${param} ORDER BY iteration DESC LIMIT 1)`;

/** A column's SQL and its parameter: a config key's value (`->` keeps its JSON type: true, 0.001, "grpo"), or a metric's last value. */
function columnSql(column: string, param: string): { sql: string; value: string; text: string } {
  if (column.startsWith(METRIC_COLUMN_PREFIX)) {
    const sql = lastMetric(param);
    return { sql, value: column.slice(METRIC_COLUMN_PREFIX.length), text: sql };
  }
  return { sql: `config -> @${param}`, value: configPath(column), text: `config ->> @${param}` };
}

/**
 * What a row shows; `config` only the keys the table reads (progress and the warm-up status), and
 * the values of the columns asked for.
 */
function rowSql(columns: readonly string[]): string {
  const values = columns.length === 0 ? '' : `, json_array(${columns.map((column, i) => columnSql(column, `column${i}`).sql).join(', ')}) AS column_values`;
  return `SELECT id, name, status, created_at, seed, env_tags, algorithm, parent_run_id, parent_iteration,
  tags, notes, last_iteration, best_val_success, warm_start_progress,
  (SELECT value FROM metrics WHERE run_id = runs.id AND name = '${COLLAPSE_METRIC}' ORDER BY iteration DESC LIMIT 1) = 1 AS collapsed,
  json_object(
    'trainer', json_object('total_training_steps', json_extract(config, '$.trainer.total_training_steps')),
    'warm_start', json_object('mode', json_extract(config, '$.warm_start.mode'), 'steps', json_extract(config, '$.warm_start.steps'))
  ) AS config_slice${values}
  FROM runs`;
}

/** A dotted config key as a JSON path, each part quoted (a key may hold a dash); the key is checked by RUN_COLUMN_KEY first. */
export function configPath(key: string): string {
  if (!RUN_COLUMN_KEY.test(key)) throw new RangeError(`'${key}' is not a config key (dotted names: algorithm.adv_estimator)`);
  return `$.${key.split('.').map((part) => `"${part}"`).join('.')}`;
}

/** The share of its iterations a run has done, 0 to 1 (past the total, after a resume that raised it, 1). */
const PROGRESS_SQL = `min(1.0, CAST(last_iteration AS REAL) / nullif(json_extract(config, '$.trainer.total_training_steps'), 0))`;

const SORT_SQL: Record<Exclude<RunSortKeyDto, `config:${string}` | `metric:${string}`>, string> = {
  id: 'id',
  name: 'name',
  status: 'status',
  env: 'env_tags',
  algorithm: 'algorithm',
  seed: 'seed',
  iterations: 'last_iteration',
  progress: PROGRESS_SQL,
  bestValSuccess: 'best_val_success',
  createdAt: 'created_at',
};

/** A JSON array column's items joined by newlines, for the search. */
const joined = (column: string) => `coalesce((SELECT group_concat(j.value, char(10)) FROM json_each(runs.${column}) j), '')`;

const SEARCH_SQL = `instr(lower(id || char(10) || name || char(10) || notes || char(10) || algorithm || char(10) ||
  ${joined('tags')} || char(10) || ${joined('env_tags')}), @search) > 0`;

interface RowRaw {
  id: number;
  name: string;
  status: RunRowDto['status'];
  created_at: number;
  seed: number;
  env_tags: string;
  algorithm: string;
  parent_run_id: number | null;
  parent_iteration: number | null;
  tags: string;
  notes: string;
  last_iteration: number | null;
  best_val_success: number | null;
  warm_start_progress: string | null;
  collapsed: number | null;
  config_slice: string;
  column_values?: string;
}

function toRow(raw: RowRaw): RunRowDto {
  return {
    id: raw.id,
    name: raw.name,
    status: raw.status,
    createdAt: raw.created_at,
    seed: raw.seed,
    envTags: JSON.parse(raw.env_tags) as string[],
    algorithm: raw.algorithm,
    parentRunId: raw.parent_run_id,
    parentIteration: raw.parent_iteration,
    tags: JSON.parse(raw.tags) as string[],
    notes: raw.notes,
    iterations: raw.last_iteration,
    bestValSuccess: raw.best_val_success,
    config: JSON.parse(raw.config_slice) as RunRowDto['config'],
    warmStartProgress: raw.warm_start_progress === null ? null : (JSON.parse(raw.warm_start_progress) as RunRowDto['warmStartProgress']),
    collapsed: raw.collapsed === 1,
    ...(raw.column_values === undefined ? {} : { columnValues: JSON.parse(raw.column_values) as unknown[] }),
  };
}

/** The SQL of each run field a condition may name (RUN_CONDITION_FIELDS), the lists apart. */
const FIELD_SQL: Record<string, string> = {
  id: 'id',
  name: 'name',
  status: 'status',
  algorithm: 'algorithm',
  seed: 'seed',
  iterations: 'last_iteration',
  progress: PROGRESS_SQL,
  best_val_success: 'best_val_success',
  created_at: 'created_at',
};

const isRunField = (column: string): boolean => (RUN_CONDITION_FIELDS as readonly string[]).includes(column);

/**
 * A condition as SQL: `json_extract` gives a config value its SQL type (a number compares as a
 * number, true and false as 1 and 0), and a run without the key or metric reads NULL, which no
 * comparison matches.
 */
function conditionSql(condition: RunConditionDto, i: number, params: SqlParams): string {
  if (!(RUN_CONDITION_OPS as readonly string[]).includes(condition.op)) throw new RangeError(`'${condition.op}' is not an operator (${RUN_CONDITION_OPS.join(' ')})`);
  const column = `where${i}`;
  const value = `where${i}value`;
  if (isRunField(condition.column)) {
    params[value] = typeof condition.value === 'boolean' ? Number(condition.value) : condition.value;
    if (!RUN_CONDITION_LIST_FIELDS.includes(condition.column)) return `${FIELD_SQL[condition.column]} ${condition.op} @${value}`;
    if (condition.op !== '=' && condition.op !== '!=') throw new RangeError(`${condition.column} compares with = or != only`);
    const any = `EXISTS (SELECT 1 FROM json_each(runs.${condition.column === 'env' ? 'env_tags' : 'tags'}) j WHERE j.value = @${value})`;
    return condition.op === '=' ? any : `NOT ${any}`;
  }
  const isMetric = condition.column.startsWith(METRIC_COLUMN_PREFIX);
  params[column] = isMetric ? condition.column.slice(METRIC_COLUMN_PREFIX.length) : configPath(condition.column);
  params[value] = typeof condition.value === 'boolean' ? Number(condition.value) : condition.value;
  const left = isMetric ? lastMetric(column) : `json_extract(config, @${column})`;
  return `${left} ${condition.op} @${value}`;
}

/** The WHERE clause and its parameters for the query's filters. */
function whereOf(query: RunPageQueryDto): { sql: string; params: SqlParams } {
  const terms: string[] = [];
  const params: SqlParams = {};
  for (const key of ['status', 'algorithm'] as const) {
    const value = query[key];
    if (!value) continue;
    terms.push(`${key} = @${key}`);
    params[key] = value;
  }
  // A JSON array column holding the value as one of its items.
  for (const [key, column] of [['env', 'env_tags'], ['tag', 'tags']] as const) {
    const value = query[key];
    if (!value) continue;
    terms.push(`EXISTS (SELECT 1 FROM json_each(runs.${column}) j WHERE j.value = @${key})`);
    params[key] = value;
  }
  const search = query.search?.trim().toLowerCase();
  if (search) {
    // SQLite's lower() folds ASCII only: a non-ASCII search matches its exact case.
    terms.push(SEARCH_SQL);
    params.search = search;
  }
  (query.where ?? []).forEach((condition, i) => terms.push(conditionSql(condition, i, params)));
  return { sql: terms.length ? `WHERE ${terms.join(' AND ')}` : '', params };
}

function distinct(db: Database.Database, sql: string): string[] {
  return (db.prepare(sql).all() as Array<{ v: string }>).map((r) => r.v);
}

export function filterChoices(db: Database.Database): RunFilterChoicesDto {
  return {
    status: distinct(db, 'SELECT DISTINCT status AS v FROM runs ORDER BY v'),
    env: distinct(db, 'SELECT DISTINCT j.value AS v FROM runs, json_each(runs.env_tags) j ORDER BY v'),
    algorithm: distinct(db, 'SELECT DISTINCT algorithm AS v FROM runs ORDER BY v'),
    tag: distinct(db, 'SELECT DISTINCT j.value AS v FROM runs, json_each(runs.tags) j ORDER BY v'),
  };
}

/** The page's two statements (its rows, and how many match) and their parameters; the UI benchmark prints their plans. */
export function runPageSql(query: RunPageQueryDto): { rows: string; count: string; params: SqlParams; countParams: SqlParams } {
  const { sql: where, params } = whereOf(query);
  const columns = query.columns ?? [];
  const rowParams: SqlParams = { ...params };
  columns.forEach((column, i) => (rowParams[`column${i}`] = columnSql(column, `column${i}`).value));
  const sort = query.sort ?? 'id';
  let key: string;
  const sortBy = sort.startsWith('config:') || sort.startsWith(METRIC_COLUMN_PREFIX) ? sort.replace(/^config:/, '') : null;
  if (sortBy !== null) {
    const { value, text } = columnSql(sortBy, 'sortBy');
    rowParams.sortBy = value;
    key = text;
  } else {
    key = SORT_SQL[sort as keyof typeof SORT_SQL];
  }
  const direction = query.descending ? 'DESC' : 'ASC';
  const limit = Math.min(RUN_PAGE_MAX_LIMIT, Math.max(1, query.limit ?? RUN_PAGE_DEFAULT_LIMIT));
  const offset = Math.max(0, query.offset ?? 0);
  const order = key === 'id' ? `id ${direction}` : `(${key}) IS NULL, ${key} ${direction}, id`;
  return { rows: `${rowSql(columns)} ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`, count: `SELECT COUNT(*) AS n FROM runs ${where}`, params: rowParams, countParams: params };
}

/** Whether some run has this config key or has logged this metric. */
function someRunHas(db: Database.Database, column: string): boolean {
  if (isRunField(column)) return true;
  const found = column.startsWith(METRIC_COLUMN_PREFIX)
    ? db.prepare('SELECT 1 FROM runs WHERE EXISTS (SELECT 1 FROM metrics WHERE run_id = runs.id AND name = ?) LIMIT 1').get(column.slice(METRIC_COLUMN_PREFIX.length))
    : db.prepare('SELECT 1 FROM runs WHERE json_type(config, ?) IS NOT NULL LIMIT 1').get(configPath(column));
  return found !== undefined;
}

/** Runs whose keys and metric names the suggestions read: the newest, as the reader most likely means one of them. */
const SUGGESTION_RUNS = 5;

/**
 * The nearest column the newest runs have: a key ending in what was typed (`lr` for
 * `actor_rollout_ref.actor.optim.lr`), else the closest by edit distance if it is near.
 */
function closestColumn(db: Database.Database, column: string): string | null {
  const newest = db.prepare('SELECT id, config FROM runs ORDER BY id DESC LIMIT ?').all(SUGGESTION_RUNS) as Array<{ id: number; config: string }>;
  const isMetric = column.startsWith(METRIC_COLUMN_PREFIX);
  const typed = isMetric ? column.slice(METRIC_COLUMN_PREFIX.length) : column;
  const metricNames = db.prepare('SELECT DISTINCT name FROM metrics WHERE run_id = ?').pluck();
  const names = [
    ...new Set(newest.flatMap((run) => (isMetric ? (metricNames.all(run.id) as string[]) : Object.keys(flattenConfig(JSON.parse(run.config)))))),
    ...(isMetric ? [] : RUN_CONDITION_FIELDS),
  ];
  if (names.length === 0) return null;
  const suffixed = names.filter((name) => name.endsWith(`.${typed}`) || name.endsWith(`/${typed}`));
  const near = suffixed.length > 0 ? policyFirst(suffixed) : closestName(typed, names)!;
  if (suffixed.length === 0 && distance(typed, near) > Math.max(2, typed.length / 2)) return null;
  return isMetric ? `${METRIC_COLUMN_PREFIX}${near}` : near;
}

/** The columns (config keys, `metric:<name>`) no run has, each with the nearest one some run has. */
export function unknownColumnsOf(db: Database.Database, columns: readonly string[]): UnknownRunColumnDto[] {
  return [...new Set(columns)].filter((column) => !someRunHas(db, column)).map((column) => ({ column, closest: closestColumn(db, column) }));
}

/** The conditions' columns no run has (a misspelt key or metric reads NULL everywhere and matches nothing). */
function unknownColumns(db: Database.Database, conditions: readonly RunConditionDto[]): UnknownRunColumnDto[] {
  return unknownColumnsOf(db, conditions.map((c) => c.column));
}

/**
 * A sweep's line in the Runs view reads its grid back from its runs' configs (preload/sweeps.ts):
 * the rows of a sweep's runs carry their whole config, not the table's slice of it.
 */
function withSweepConfigs(db: Database.Database, rows: RunRowDto[]): RunRowDto[] {
  const configOf = db.prepare('SELECT config FROM runs WHERE id = ?').pluck();
  return rows.map((row) => (sweepOf(row.tags) === null ? row : { ...row, config: JSON.parse(configOf.get(row.id) as string) as RunRowDto['config'] }));
}

/** One page of runs as `query` filters and sorts them; unknown values (null) sort last either way. */
export function runPage(db: Database.Database, query: RunPageQueryDto): RunPageDto {
  const sql = runPageSql(query);
  const rows = db.prepare(sql.rows).all(sql.params) as RowRaw[];
  const total = (db.prepare(sql.count).get(sql.countParams) as { n: number }).n;
  // Only an empty answer can come from a misspelt column, and only then is it worth the look.
  const unknown = total === 0 && query.where?.length ? { unknownColumns: unknownColumns(db, query.where) } : {};
  if (!query.withChoices) return { rows: rows.map(toRow), total, choices: null, seedGroupRuns: null, ...unknown };
  const grouped = db
    .prepare(`${rowSql([])} WHERE EXISTS (SELECT 1 FROM json_each(runs.tags) j WHERE substr(j.value, 1, ${SEED_GROUP_PREFIX.length}) = @prefix) ORDER BY id`)
    .all({ prefix: SEED_GROUP_PREFIX }) as RowRaw[];
  return { rows: rows.map(toRow), total, choices: filterChoices(db), seedGroupRuns: withSweepConfigs(db, grouped.map(toRow)), ...unknown };
}
