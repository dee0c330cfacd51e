import type Database from 'better-sqlite3';
import { CHECKPOINT_COLUMNS, selectList, toRecord } from '../columns';
import { storedJson, storedValue } from '../text';
import type { CheckpointRecord, NewCheckpoint } from '../types';

export class CheckpointsRepository {
  constructor(private readonly db: Database.Database) {}

  /**
   * Records checkpoints in one transaction; one per (run, iteration). Each supersedes its run's
   * warm-start checkpoint (a newer one, or a finished one): its row goes in the same transaction,
   * so a run killed at any moment has exactly one checkpoint to resume from.
   */
  insert(checkpoints: NewCheckpoint[]): CheckpointRecord[] {
    const statement = this.db.prepare(
      `INSERT INTO checkpoints (run_id, iteration, path, size_bytes, sha256, created_at, metrics, warm_start_step)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const superseded = this.db.prepare('DELETE FROM checkpoints WHERE run_id = ? AND warm_start_step IS NOT NULL');
    const ids = this.db.transaction(() =>
      checkpoints.map((c) => {
        superseded.run(c.runId);
        return Number(
          statement.run(
            c.runId,
            c.iteration,
            storedValue(c.path),
            c.sizeBytes,
            c.sha256,
            c.createdAt ?? Date.now(),
            storedJson(c.metrics ?? {}),
            c.warmStartStep ?? null,
          ).lastInsertRowid,
        );
      }),
    )();
    return ids.map((id) => this.get(id)!);
  }

  get(id: number): CheckpointRecord | undefined {
    const raw = this.db.prepare(`SELECT ${selectList(CHECKPOINT_COLUMNS)} FROM checkpoints WHERE id = ?`).get(id);
    return raw ? toRecord<CheckpointRecord>(CHECKPOINT_COLUMNS, raw as Record<string, unknown>) : undefined;
  }

  /** A run's checkpoints by iteration, ascending. */
  listByRun(runId: number): CheckpointRecord[] {
    const rows = this.db
      .prepare(`SELECT ${selectList(CHECKPOINT_COLUMNS)} FROM checkpoints WHERE run_id = ? ORDER BY iteration`)
      .all(runId);
    return rows.map((raw) => toRecord<CheckpointRecord>(CHECKPOINT_COLUMNS, raw as Record<string, unknown>));
  }

  /** The checkpoint of a run at the highest iteration not above `atOrBefore` (default: the last one). */
  latest(runId: number, atOrBefore = Number.MAX_SAFE_INTEGER): CheckpointRecord | undefined {
    const raw = this.db
      .prepare(
        `SELECT ${selectList(CHECKPOINT_COLUMNS)} FROM checkpoints WHERE run_id = ? AND iteration <= ?
         ORDER BY iteration DESC LIMIT 1`,
      )
      .get(runId, atOrBefore);
    return raw ? toRecord<CheckpointRecord>(CHECKPOINT_COLUMNS, raw as Record<string, unknown>) : undefined;
  }

  /** The highest id ever given (AUTOINCREMENT never gives one twice), deleted checkpoints included; 0 before the first. */
  highestIdEver(): number {
    const row = this.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'checkpoints'").get() as { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  /** Forgets a checkpoint row (its folder was pruned or deleted). */
  remove(id: number): boolean {
    return this.db.prepare('DELETE FROM checkpoints WHERE id = ?').run(id).changes > 0;
  }
}
