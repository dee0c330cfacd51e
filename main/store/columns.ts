import type { ExportRow } from './types';

/** How a column is stored: JSON and booleans need decoding on the way out. */
export type ColumnKind = 'int' | 'real' | 'text' | 'json' | 'bool';

export interface Column {
  name: string;
  kind: ColumnKind;
  /** The SQL expression when it is not the bare column name. */
  sql?: string;
}

function columns(spec: string): Column[] {
  return spec
    .trim()
    .split(/\s+/)
    .map((item) => {
      const [name, kind] = item.split(':');
      return { name, kind: kind as ColumnKind };
    });
}

export const RUN_COLUMNS = columns(`
  id:int name:text status:text created_at:int started_at:int finished_at:int config:json config_hash:text
  seed:int env_tags:json algorithm:text backend:text device:text parent_run_id:int parent_checkpoint_id:int
  parent_iteration:int error:text tags:json notes:text trainer_pid:int trainer_host:text
  trainer_started_at:int trainer_heartbeat_at:int parameter_count:int warm_start_progress:json`);

export const METRIC_COLUMNS = columns(`run_id:int name:text iteration:int value:real wall_time:real`);

export const EPISODE_COLUMNS = columns(`
  id:int run_id:int iteration:int split:text env_tag:text group_id:int env_index:int seed:int total_reward:real
  success:bool num_turns:int num_actions:int truncated:bool filtered_out:bool`);

export const TURN_COLUMNS = columns(`
  id:int episode_id:int turn_index:int observation:text state:json response:text actions:json
  num_valid_actions:int reward:real done:bool info:json num_tokens:int logprob_sum:real advantage_mean:real`);

export const CHECKPOINT_COLUMNS = columns(`
  id:int run_id:int iteration:int path:text size_bytes:int sha256:text created_at:int metrics:json warm_start_step:int`);

/**
 * Metric rows as exported: the run's name beside its id, so a CSV opened on its own says which
 * run it holds.
 */
export const METRIC_EXPORT_COLUMNS: Column[] = [
  { name: 'run_id', kind: 'int' },
  { name: 'run_name', kind: 'text', sql: '(SELECT r.name FROM runs r WHERE r.id = metrics.run_id)' },
  ...METRIC_COLUMNS.filter((c) => c.name !== 'run_id'),
];

/** A run's log lines as exported: the run's id and name first, as metric rows carry them. */
export const LOG_EXPORT_COLUMNS: Column[] = [
  { name: 'run_id', kind: 'int' },
  { name: 'run_name', kind: 'text', sql: '(SELECT r.name FROM runs r WHERE r.id = run_logs.run_id)' },
  { name: 'id', kind: 'int' },
  { name: 'at', kind: 'int' },
  { name: 'line', kind: 'text' },
];

export const EVALUATION_COLUMNS = columns(`
  id:int run_id:int checkpoint_id:int iteration:int created_at:int config:json overrides:json num_episodes:int
  start_seed:int backend:text device:text metrics:json`);

/** Episode rows as exported: the run's name beside its id, as metric rows carry it. */
export const EPISODE_EXPORT_COLUMNS: Column[] = [
  { name: 'id', kind: 'int' },
  { name: 'run_id', kind: 'int' },
  { name: 'run_name', kind: 'text', sql: '(SELECT r.name FROM runs r WHERE r.id = episodes.run_id)' },
  ...EPISODE_COLUMNS.filter((c) => c.name !== 'id' && c.name !== 'run_id'),
  // An evaluation's episodes (`export --evaluation N`) beside the run's own validation ones of that iteration: null for the run's own.
  { name: 'evaluation_id', kind: 'int' },
];

/** Turn rows as exported: the episode's coordinates first, so every turn can be related back. */
export const TURN_EXPORT_COLUMNS: Column[] = [
  { name: 'id', kind: 'int', sql: 't.id' },
  { name: 'run_id', kind: 'int', sql: 'e.run_id' },
  { name: 'run_name', kind: 'text', sql: '(SELECT r.name FROM runs r WHERE r.id = e.run_id)' },
  { name: 'episode_id', kind: 'int', sql: 't.episode_id' },
  ...columns('iteration:int split:text env_tag:text group_id:int env_index:int').map((c) => ({ ...c, sql: `e.${c.name}` })),
  ...TURN_COLUMNS.filter((c) => c.name !== 'id' && c.name !== 'episode_id').map((c) => ({ ...c, sql: `t.${c.name}` })),
  { name: 'evaluation_id', kind: 'int', sql: 'e.evaluation_id' },
];

export function selectList(cols: Column[]): string {
  return cols.map((c) => (c.sql ? `${c.sql} AS ${c.name}` : c.name)).join(', ');
}

/** A raw SQLite row with JSON parsed and 0/1 turned into booleans. */
export function decodeRow(cols: Column[], raw: Record<string, unknown>): ExportRow {
  const row: ExportRow = {};
  for (const col of cols) {
    const value = raw[col.name];
    if (value === null || value === undefined) row[col.name] = null;
    else if (col.kind === 'json') row[col.name] = JSON.parse(value as string);
    else if (col.kind === 'bool') row[col.name] = value === 1;
    else row[col.name] = value;
  }
  return row;
}

function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** A decoded row with camelCase keys: the shape of the repository records. */
export function toRecord<T>(cols: Column[], raw: Record<string, unknown>): T {
  const decoded = decodeRow(cols, raw);
  const record: Record<string, unknown> = {};
  for (const col of cols) record[camelCase(col.name)] = decoded[col.name];
  return record as T;
}

/** JSON text for a column; `undefined` becomes the column's empty default. */
export function jsonText(value: unknown, fallback: string): string {
  return value === undefined ? fallback : JSON.stringify(value);
}
