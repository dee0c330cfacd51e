import type Database from 'better-sqlite3';

/**
 * Copies a run, row for row, from one TurnLab SQLite file to another: the run, its checkpoints,
 * evaluations, episodes with their turns, metrics and log lines. Export (store -> bundle) and import
 * (bundle -> store) are this one copy. Ids are the target's own; every reference (parent run and
 * checkpoint, an evaluation's checkpoint, an episode's evaluation, a turn's episode) is mapped.
 * Columns are those both files have, so a bundle from an older schema copies what it holds and
 * the target's defaults fill the rest. Runs inside the caller's transaction on `target`.
 */

export interface CopyRunOptions {
  /** Replace the rows of this run of the target instead of adding a run (a bundle that grew). */
  intoRunId?: number;
  /** Target ids of the runs and checkpoints copied before, for the run's parent links. */
  runIds: Map<number, number>;
  checkpointIds: Map<number, number>;
  /** Status to record instead of the source's (a source run whose trainer is gone). */
  status?: string;
  /** Places a checkpoint folder of the source for target run `runId`; returns its path to record. */
  placeCheckpoint: (sourcePath: string, runId: number, iteration: number) => string;
}

/** The owner of a run is a process of the machine that wrote the file, so it is never copied. */
const OWNER_COLUMNS = new Set(['trainer_pid', 'trainer_host', 'trainer_started_at', 'trainer_heartbeat_at']);
/**
 * Columns the target's triggers derive from the run's metrics (migration 0007): computed there as
 * the metrics are copied, never taken from a source file that may predate them.
 */
const DERIVED_COLUMNS = new Set(['last_iteration', 'best_val_success']);
/** What a user set on the target's copy of a run stays when the run is brought up to date. */
const KEPT_ON_UPDATE = new Set(['name', 'tags', 'notes']);

function columnsOf(db: Database.Database, table: string): string[] {
  return (db.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name);
}

function commonColumns(source: Database.Database, target: Database.Database, table: string): string[] {
  const there = new Set(columnsOf(target, table));
  return columnsOf(source, table).filter((c) => there.has(c));
}

function insertStatement(db: Database.Database, table: string, columns: string[]): Database.Statement {
  return db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
}

/** Deletes a run's rows below the run itself (its turns go with its episodes). */
export function clearRunRows(target: Database.Database, runId: number): void {
  for (const table of ['metrics', 'episodes', 'evaluations', 'checkpoints', 'run_logs']) {
    // A file of an older TurnLab may lack a later table (run_logs came with migration 9).
    if (columnsOf(target, table).length > 0) target.prepare(`DELETE FROM ${table} WHERE run_id = ?`).run(runId);
  }
}

export function copyRun(source: Database.Database, target: Database.Database, sourceRunId: number, options: CopyRunOptions): number {
  const run = source.prepare('SELECT * FROM runs WHERE id = ?').get(sourceRunId) as Record<string, unknown> | undefined;
  if (!run) throw new Error(`run ${sourceRunId} not found in the source file`);
  const runColumns = commonColumns(source, target, 'runs').filter((c) => c !== 'id' && !OWNER_COLUMNS.has(c) && !DERIVED_COLUMNS.has(c));
  const mapped = (column: string): unknown => {
    if (column === 'parent_run_id') return run.parent_run_id == null ? null : (options.runIds.get(run.parent_run_id as number) ?? null);
    // Set once the checkpoints are copied: the parent checkpoint may be one of the run's own.
    if (column === 'parent_checkpoint_id') return null;
    if (column === 'status' && options.status) return options.status;
    return run[column];
  };
  let runId: number;
  if (options.intoRunId !== undefined) {
    runId = options.intoRunId;
    clearRunRows(target, runId);
    const updated = runColumns.filter((c) => !KEPT_ON_UPDATE.has(c));
    target.prepare(`UPDATE runs SET ${updated.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`).run(...updated.map(mapped), runId);
  } else {
    runId = Number(insertStatement(target, 'runs', runColumns).run(...runColumns.map(mapped)).lastInsertRowid);
  }
  options.runIds.set(sourceRunId, runId);

  const checkpointColumns = commonColumns(source, target, 'checkpoints').filter((c) => c !== 'id');
  const insertCheckpoint = insertStatement(target, 'checkpoints', checkpointColumns);
  for (const row of source.prepare('SELECT * FROM checkpoints WHERE run_id = ? ORDER BY id').all(sourceRunId) as Array<Record<string, unknown>>) {
    const path = options.placeCheckpoint(row.path as string, runId, row.iteration as number);
    const values = checkpointColumns.map((c) => (c === 'run_id' ? runId : c === 'path' ? path : row[c]));
    options.checkpointIds.set(row.id as number, Number(insertCheckpoint.run(...values).lastInsertRowid));
  }
  if (run.parent_checkpoint_id != null) {
    const parentCheckpoint = options.checkpointIds.get(run.parent_checkpoint_id as number) ?? null;
    target.prepare('UPDATE runs SET parent_checkpoint_id = ? WHERE id = ?').run(parentCheckpoint, runId);
  }

  const evaluationIds = new Map<number, number>();
  const evaluationColumns = commonColumns(source, target, 'evaluations').filter((c) => c !== 'id');
  const insertEvaluation = insertStatement(target, 'evaluations', evaluationColumns);
  for (const row of source.prepare('SELECT * FROM evaluations WHERE run_id = ? ORDER BY id').all(sourceRunId) as Array<Record<string, unknown>>) {
    const values = evaluationColumns.map((c) =>
      c === 'run_id' ? runId : c === 'checkpoint_id' ? (row.checkpoint_id == null ? null : (options.checkpointIds.get(row.checkpoint_id as number) ?? null)) : row[c],
    );
    evaluationIds.set(row.id as number, Number(insertEvaluation.run(...values).lastInsertRowid));
  }

  const episodeIds = new Map<number, number>();
  const episodeColumns = commonColumns(source, target, 'episodes').filter((c) => c !== 'id');
  const insertEpisode = insertStatement(target, 'episodes', episodeColumns);
  for (const row of source.prepare('SELECT * FROM episodes WHERE run_id = ? ORDER BY id').iterate(sourceRunId) as Iterable<Record<string, unknown>>) {
    const values = episodeColumns.map((c) =>
      c === 'run_id' ? runId : c === 'evaluation_id' ? (row.evaluation_id == null ? null : evaluationIds.get(row.evaluation_id as number)) : row[c],
    );
    episodeIds.set(row.id as number, Number(insertEpisode.run(...values).lastInsertRowid));
  }

  const turnColumns = commonColumns(source, target, 'turns').filter((c) => c !== 'id');
  const insertTurn = insertStatement(target, 'turns', turnColumns);
  const turns = source.prepare(
    `SELECT t.* FROM turns t JOIN episodes e ON e.id = t.episode_id WHERE e.run_id = ? ORDER BY t.id`,
  );
  for (const row of turns.iterate(sourceRunId) as Iterable<Record<string, unknown>>) {
    insertTurn.run(...turnColumns.map((c) => (c === 'episode_id' ? episodeIds.get(row.episode_id as number) : row[c])));
  }

  const metricColumns = commonColumns(source, target, 'metrics');
  const insertMetric = insertStatement(target, 'metrics', metricColumns);
  for (const row of source.prepare('SELECT * FROM metrics WHERE run_id = ?').iterate(sourceRunId) as Iterable<Record<string, unknown>>) {
    insertMetric.run(...metricColumns.map((c) => (c === 'run_id' ? runId : row[c])));
  }

  // The trainer's log lines, where both files have them (a bundle of an older TurnLab has none).
  const logColumns = commonColumns(source, target, 'run_logs').filter((c) => c !== 'id');
  if (logColumns.length > 0) {
    const insertLog = insertStatement(target, 'run_logs', logColumns);
    for (const row of source.prepare('SELECT * FROM run_logs WHERE run_id = ? ORDER BY id').iterate(sourceRunId) as Iterable<Record<string, unknown>>) {
      insertLog.run(...logColumns.map((c) => (c === 'run_id' ? runId : row[c])));
    }
  }
  return runId;
}

/**
 * A summary of a run's rows that changes whenever the trainer records anything: importing a
 * bundle whose run has the same fingerprint as last time adds nothing.
 */
export function runFingerprint(db: Database.Database, runId: number): string {
  const row = db
    .prepare(
      `SELECT r.status, r.finished_at, r.config_hash,
        (SELECT count(*) || ':' || ifnull(max(iteration), '') || ':' || ifnull(max(wall_time), '') FROM metrics WHERE run_id = r.id) AS metrics,
        (SELECT count(*) || ':' || ifnull(max(id), '') FROM episodes WHERE run_id = r.id) AS episodes,
        (SELECT count(*) FROM turns t JOIN episodes e ON e.id = t.episode_id WHERE e.run_id = r.id) AS turns,
        (SELECT count(*) || ':' || ifnull(max(id), '') FROM checkpoints WHERE run_id = r.id) AS checkpoints,
        (SELECT count(*) || ':' || ifnull(max(id), '') FROM evaluations WHERE run_id = r.id) AS evaluations
      FROM runs r WHERE r.id = ?`,
    )
    .get(runId);
  return JSON.stringify(row);
}
