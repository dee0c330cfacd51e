import type Database from 'better-sqlite3';
import { EVALUATION_COLUMNS, selectList, toRecord } from '../columns';
import { storedJson } from '../text';
import type { EpisodeFilter, EpisodeRecord, EvaluationRecord, NewEvaluation } from '../types';
import type { EpisodesRepository } from './episodes';

/** Evaluations of checkpoints (migration 0004); their episodes live in the episodes table. */
export class EvaluationsRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly episodeRows: EpisodesRepository,
  ) {}

  /** Records an evaluation with its episodes and turns in one transaction. */
  insert(evaluation: NewEvaluation): EvaluationRecord {
    const id = this.db.transaction(() => {
      const row = this.db
        .prepare(
          `INSERT INTO evaluations (run_id, checkpoint_id, iteration, created_at, config, overrides, num_episodes, start_seed,
             backend, device, metrics)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          evaluation.runId,
          evaluation.checkpointId,
          evaluation.iteration,
          evaluation.createdAt ?? Date.now(),
          storedJson(evaluation.config),
          storedJson(evaluation.overrides ?? []),
          evaluation.episodes.length,
          evaluation.startSeed ?? null,
          evaluation.backend ?? null,
          evaluation.device ?? null,
          storedJson(evaluation.metrics),
        );
      const evaluationId = Number(row.lastInsertRowid);
      this.episodeRows.insert(
        evaluation.episodes.map((e) => ({ ...e, runId: evaluation.runId, iteration: evaluation.iteration, split: 'val' as const })),
        evaluationId,
      );
      return evaluationId;
    })();
    return this.get(id)!;
  }

  get(id: number): EvaluationRecord | undefined {
    const raw = this.db.prepare(`SELECT ${selectList(EVALUATION_COLUMNS)} FROM evaluations WHERE id = ?`).get(id);
    return raw ? toRecord<EvaluationRecord>(EVALUATION_COLUMNS, raw as Record<string, unknown>) : undefined;
  }

  /** A run's evaluations by iteration, then newest first. */
  listByRun(runId: number): EvaluationRecord[] {
    const rows = this.db
      .prepare(`SELECT ${selectList(EVALUATION_COLUMNS)} FROM evaluations WHERE run_id = ? ORDER BY iteration, id DESC`)
      .all(runId);
    return rows.map((raw) => toRecord<EvaluationRecord>(EVALUATION_COLUMNS, raw as Record<string, unknown>));
  }

  /** An evaluation's episodes, optionally narrowed. */
  episodes(evaluationId: number, filter: EpisodeFilter = {}): EpisodeRecord[] {
    return this.episodeRows.listByEvaluation(evaluationId, filter);
  }

  /** Deletes an evaluation and, through the foreign key, its episodes and turns. */
  delete(id: number): boolean {
    return this.db.prepare('DELETE FROM evaluations WHERE id = ?').run(id).changes > 0;
  }
}
