import type Database from 'better-sqlite3';
import type { RunLogLineDto } from '../../../preload/contract';
import { decodeRow, LOG_EXPORT_COLUMNS, selectList } from '../columns';
import type { ExportRow } from '../types';

/** The most lines one call returns; a reader asks again from the last id it has. */
export const RUN_LOG_PAGE = 1000;

/** The lines a run's trainer logged (migration 0009), in the order written. */
export class RunLogsRepository {
  constructor(private readonly db: Database.Database) {}

  append(runId: number, lines: readonly string[], at = Date.now()): void {
    const insert = this.db.prepare('INSERT INTO run_logs (run_id, at, line) VALUES (?, ?, ?)');
    this.db.transaction(() => {
      for (const line of lines) insert.run(runId, at, line);
    })();
  }

  /** Lines after `afterId` (0: from the first), at most `limit`. */
  list(runId: number, afterId = 0, limit = RUN_LOG_PAGE): RunLogLineDto[] {
    return this.db
      .prepare('SELECT id, at, line FROM run_logs WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?')
      .all(runId, afterId, limit) as RunLogLineDto[];
  }

  /** Export rows of the given runs' lines, run by run in the order given, a page at a time. */
  *exportRows(runIds: number[], pageSize = 2000): Generator<ExportRow> {
    const page = this.db.prepare(`SELECT ${selectList(LOG_EXPORT_COLUMNS)} FROM run_logs WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?`);
    for (const runId of runIds) {
      for (let after = 0; ; ) {
        const rows = page.all(runId, after, pageSize) as Array<Record<string, unknown>>;
        for (const raw of rows) yield decodeRow(LOG_EXPORT_COLUMNS, raw);
        if (rows.length < pageSize) break;
        after = rows[rows.length - 1].id as number;
      }
    }
  }
}
