// A run's rows read straight from a TurnLab SQLite file with ids replaced by their order, so that
// a run in a bundle and its imported copy in another file compare value for value.
import Database from 'better-sqlite3';

export interface RunRows {
  run: Record<string, unknown>;
  metrics: unknown[];
  checkpoints: unknown[];
  evaluations: unknown[];
  episodes: unknown[];
  turns: unknown[];
  /** The trainer's log lines (none in a file of a TurnLab before migration 9). */
  logs: unknown[];
}

const withoutKeys = (row: Record<string, unknown>, keys: string[]) => Object.fromEntries(Object.entries(row).filter(([k]) => !keys.includes(k)));

export function readRunRows(file: string, runId: number): RunRows {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const run = db.prepare('SELECT * FROM runs WHERE id = ?').get(runId) as Record<string, unknown>;
    const evaluationOrder = new Map<number, number>();
    const evaluations = (db.prepare('SELECT * FROM evaluations WHERE run_id = ? ORDER BY id').all(runId) as Array<Record<string, unknown>>).map((e, i) => {
      evaluationOrder.set(e.id as number, i);
      return withoutKeys(e, ['id', 'run_id', 'checkpoint_id']);
    });
    const episodeOrder = new Map<number, number>();
    const episodes = (db.prepare('SELECT * FROM episodes WHERE run_id = ? ORDER BY id').all(runId) as Array<Record<string, unknown>>).map((e, i) => {
      episodeOrder.set(e.id as number, i);
      return { ...withoutKeys(e, ['id', 'run_id']), evaluation_id: e.evaluation_id == null ? null : evaluationOrder.get(e.evaluation_id as number) };
    });
    const turns = (
      db.prepare('SELECT t.* FROM turns t JOIN episodes e ON e.id = t.episode_id WHERE e.run_id = ? ORDER BY t.id').all(runId) as Array<Record<string, unknown>>
    ).map((t) => ({ ...withoutKeys(t, ['id']), episode_id: episodeOrder.get(t.episode_id as number) }));
    return {
      run: withoutKeys(run, ['id', 'parent_run_id', 'parent_checkpoint_id', 'trainer_pid', 'trainer_host', 'trainer_started_at', 'trainer_heartbeat_at']),
      metrics: (db.prepare('SELECT * FROM metrics WHERE run_id = ? ORDER BY name, iteration').all(runId) as Array<Record<string, unknown>>).map((m) => withoutKeys(m, ['run_id'])),
      checkpoints: (db.prepare('SELECT * FROM checkpoints WHERE run_id = ? ORDER BY iteration').all(runId) as Array<Record<string, unknown>>).map((c) =>
        withoutKeys(c, ['id', 'run_id', 'path']),
      ),
      evaluations,
      episodes,
      turns,
      logs: db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'run_logs'").get()
        ? (db.prepare('SELECT * FROM run_logs WHERE run_id = ? ORDER BY id').all(runId) as Array<Record<string, unknown>>).map((l) => withoutKeys(l, ['id', 'run_id']))
        : [],
    };
  } finally {
    db.close();
  }
}
