import type Database from 'better-sqlite3';
import { TURN_COLUMNS, TURN_EXPORT_COLUMNS, decodeRow, selectList, toRecord } from '../columns';
import type { ExportRow, TurnRecord } from '../types';

/** Turns are written together with their episode (EpisodesRepository.insert); this reads them. */
export class TurnsRepository {
  constructor(private readonly db: Database.Database) {}

  listByEpisode(episodeId: number): TurnRecord[] {
    const rows = this.db
      .prepare(`SELECT ${selectList(TURN_COLUMNS)} FROM turns WHERE episode_id = ? ORDER BY turn_index`)
      .all(episodeId);
    return rows.map((raw) => toRecord<TurnRecord>(TURN_COLUMNS, raw as Record<string, unknown>));
  }

  /**
   * Export rows of the given runs' own episodes (or, with `evaluationId`, that evaluation's), episode by episode in insertion order, each with the
   * episode's run, iteration, split, tag, group and env index. Paged by (episode id, turn
   * index); see MetricsRepository.exportRows for why not one open `.iterate()`.
   */
  *exportRows(runIds: number[], pageSize = 1000, evaluationId: number | null = null): Generator<ExportRow> {
    // Written so the planner walks the run's episodes by id and each episode's turns by index:
    // no sort, no scan of other runs' turns.
    const page = this.db.prepare(
      `SELECT ${selectList(TURN_EXPORT_COLUMNS)}
       FROM episodes e JOIN turns t ON t.episode_id = e.id
       WHERE e.run_id = ? AND e.evaluation_id IS ? AND e.id >= ? AND (e.id > ? OR t.turn_index > ?)
       ORDER BY e.id, t.turn_index LIMIT ?`,
    );
    for (const runId of runIds) {
      let afterEpisode = 0;
      let afterTurn = -1;
      for (;;) {
        const rows = page.all(runId, evaluationId, afterEpisode, afterEpisode, afterTurn, pageSize) as Array<Record<string, unknown>>;
        for (const raw of rows) yield decodeRow(TURN_EXPORT_COLUMNS, raw);
        if (rows.length < pageSize) break;
        const last = rows[rows.length - 1];
        afterEpisode = last.episode_id as number;
        afterTurn = last.turn_index as number;
      }
    }
  }
}
