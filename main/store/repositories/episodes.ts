import type Database from 'better-sqlite3';
import { EPISODE_COLUMNS, EPISODE_EXPORT_COLUMNS, decodeRow, selectList, toRecord } from '../columns';
import { StoreError } from '../errors';
import { storedJson, storedValue } from '../text';
import { SPLITS, type EpisodeFilter, type EpisodeRecord, type ExportRow, type NewEpisode } from '../types';

const bit = (flag: boolean | undefined): number => (flag ? 1 : 0);

function checkEpisode(episode: NewEpisode): void {
  if (!(SPLITS as readonly string[]).includes(episode.split)) {
    throw new StoreError('INVALID_INPUT', `episode split '${episode.split}' is not one of ${SPLITS.join(', ')}`);
  }
  if (!Array.isArray(episode.turns)) throw new StoreError('INVALID_INPUT', 'episode has no turns array');
}

/** The WHERE terms and parameters that narrow a listing by `filter`. */
function narrowing(filter: EpisodeFilter, where: string[], params: Record<string, string | number>): void {
  const narrow = (column: string, key: string, value: string | number | boolean | undefined): void => {
    if (value === undefined) return;
    where.push(`${column} = @${key}`);
    params[key] = typeof value === 'boolean' ? bit(value) : value;
  };
  narrow('split', 'split', filter.split);
  narrow('env_tag', 'envTag', filter.envTag);
  narrow('group_id', 'groupId', filter.groupId);
  narrow('success', 'success', filter.success);
  narrow('filtered_out', 'filteredOut', filter.filteredOut);
}

/**
 * Episodes are a run's own (training and validation, `evaluation_id` null) or an evaluation's
 * (migration 0004); every listing by run reads only the run's own.
 */
export class EpisodesRepository {
  // Prepared once per connection: every iteration of a run writes a batch.
  private inserts?: { episode: Database.Statement; turn: Database.Statement };

  constructor(private readonly db: Database.Database) {}

  /**
   * Writes episodes together with their turns in one transaction and returns the new episode
   * ids in order. Two episodes with the same (run, iteration, split, env tag, env index) are
   * refused: that is a bookkeeping bug upstream, not something to paper over. With
   * `evaluationId` they are that evaluation's episodes (EvaluationsRepository.insert).
   */
  insert(episodes: NewEpisode[], evaluationId: number | null = null): number[] {
    if (episodes.length === 0) return [];
    for (const episode of episodes) checkEpisode(episode);
    this.inserts ??= {
      episode: this.db.prepare(
        `INSERT INTO episodes (run_id, iteration, split, env_tag, group_id, env_index, seed, total_reward, success,
           num_turns, num_actions, truncated, filtered_out, evaluation_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      turn: this.db.prepare(
        `INSERT INTO turns (episode_id, turn_index, observation, state, response, actions, num_valid_actions, reward,
           done, info, num_tokens, logprob_sum, advantage_mean)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
    const { episode: insertEpisode, turn: insertTurn } = this.inserts;
    return this.db.transaction(() =>
      episodes.map((e) => {
        const id = Number(
          insertEpisode.run(
            e.runId,
            e.iteration,
            e.split,
            storedValue(e.envTag),
            e.groupId,
            e.envIndex,
            e.seed,
            e.totalReward,
            bit(e.success),
            e.numTurns ?? e.turns.length,
            e.numActions,
            bit(e.truncated),
            bit(e.filteredOut),
            evaluationId,
          ).lastInsertRowid,
        );
        e.turns.forEach((t, position) => {
          insertTurn.run(
            id,
            t.turnIndex ?? position,
            storedValue(t.observation),
            t.state === undefined || t.state === null ? null : storedJson(t.state),
            storedValue(t.response),
            storedJson(t.actions),
            t.numValidActions,
            t.reward,
            bit(t.done),
            storedJson(t.info ?? {}),
            t.numTokens,
            t.logprobSum ?? null,
            t.advantageMean ?? null,
          );
        });
        return id;
      }),
    )();
  }

  get(id: number): EpisodeRecord | undefined {
    const raw = this.db.prepare(`SELECT ${selectList(EPISODE_COLUMNS)} FROM episodes WHERE id = ?`).get(id);
    return raw ? toRecord<EpisodeRecord>(EPISODE_COLUMNS, raw as Record<string, unknown>) : undefined;
  }

  /** A run's own episodes at one iteration, optionally narrowed; ordered by split, tag, group, env. */
  listByIteration(runId: number, iteration: number, filter: EpisodeFilter = {}): EpisodeRecord[] {
    const where = ['run_id = @runId', 'iteration = @iteration', 'evaluation_id IS NULL'];
    const params: Record<string, string | number> = { runId, iteration };
    narrowing(filter, where, params);
    return this.select(where, params);
  }

  /** An evaluation's episodes, optionally narrowed; ordered by tag and env. */
  listByEvaluation(evaluationId: number, filter: EpisodeFilter = {}): EpisodeRecord[] {
    const where = ['evaluation_id = @evaluationId'];
    const params: Record<string, string | number> = { evaluationId };
    narrowing(filter, where, params);
    return this.select(where, params);
  }

  /** The evaluation an episode was played in; null for a run's own episode or an unknown id. */
  evaluationOf(episodeId: number): number | null {
    const row = this.db.prepare('SELECT evaluation_id FROM episodes WHERE id = ?').get(episodeId) as { evaluation_id: number | null } | undefined;
    return row?.evaluation_id ?? null;
  }

  private select(where: string[], params: Record<string, string | number>): EpisodeRecord[] {
    const rows = this.db
      .prepare(
        `SELECT ${selectList(EPISODE_COLUMNS)} FROM episodes WHERE ${where.join(' AND ')}
         ORDER BY split, env_tag, env_index`,
      )
      .all(params);
    return rows.map((raw) => toRecord<EpisodeRecord>(EPISODE_COLUMNS, raw as Record<string, unknown>));
  }

  /** The iterations at which a run recorded episodes of its own (of one split, if given), ascending. */
  iterations(runId: number, split?: EpisodeFilter['split']): number[] {
    const own = 'FROM episodes WHERE run_id = ? AND evaluation_id IS NULL';
    const rows = split
      ? this.db.prepare(`SELECT DISTINCT iteration ${own} AND split = ? ORDER BY iteration`).all(runId, split)
      : this.db.prepare(`SELECT DISTINCT iteration ${own} ORDER BY iteration`).all(runId);
    return (rows as Array<{ iteration: number }>).map((r) => r.iteration);
  }

  /**
   * Export rows of the given runs' own episodes in insertion order, paged by id (see
   * MetricsRepository.exportRows for why not one open `.iterate()`).
   */
  *exportRows(runIds: number[], pageSize = 2000, evaluationId: number | null = null): Generator<ExportRow> {
    // `IS ?` matches NULL too: a run's own episodes, or one evaluation's.
    const page = this.db.prepare(
      `SELECT ${selectList(EPISODE_EXPORT_COLUMNS)} FROM episodes WHERE run_id = ? AND id > ? AND evaluation_id IS ? ORDER BY id LIMIT ?`,
    );
    for (const runId of runIds) {
      let after = 0;
      for (;;) {
        const rows = page.all(runId, after, evaluationId, pageSize) as Array<Record<string, unknown>>;
        for (const raw of rows) yield decodeRow(EPISODE_EXPORT_COLUMNS, raw);
        if (rows.length < pageSize) break;
        after = rows[rows.length - 1].id as number;
      }
    }
  }
}
