import type Database from 'better-sqlite3';
import { EPISODE_COLUMNS, decodeRow, selectList, toRecord } from '../columns';
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

export class EpisodesRepository {
  constructor(private readonly db: Database.Database) {}

  /**
   * Writes episodes together with their turns in one transaction and returns the new episode
   * ids in order. Two episodes with the same (run, iteration, split, env tag, env index) are
   * refused: that is a bookkeeping bug upstream, not something to paper over.
   */
  insert(episodes: NewEpisode[]): number[] {
    if (episodes.length === 0) return [];
    for (const episode of episodes) checkEpisode(episode);
    const insertEpisode = this.db.prepare(
      `INSERT INTO episodes (run_id, iteration, split, env_tag, group_id, env_index, seed, total_reward, success,
         num_turns, num_actions, truncated, filtered_out)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertTurn = this.db.prepare(
      `INSERT INTO turns (episode_id, turn_index, observation, state, response, actions, num_valid_actions, reward,
         done, info, num_tokens, logprob_sum, advantage_mean)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
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

  /** A run's episodes at one iteration, optionally narrowed; ordered by split, tag, group, env. */
  listByIteration(runId: number, iteration: number, filter: EpisodeFilter = {}): EpisodeRecord[] {
    const where = ['run_id = @runId', 'iteration = @iteration'];
    const params: Record<string, string | number> = { runId, iteration };
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
    const rows = this.db
      .prepare(
        `SELECT ${selectList(EPISODE_COLUMNS)} FROM episodes WHERE ${where.join(' AND ')}
         ORDER BY split, env_tag, env_index`,
      )
      .all(params);
    return rows.map((raw) => toRecord<EpisodeRecord>(EPISODE_COLUMNS, raw as Record<string, unknown>));
  }

  /** The iterations at which a run recorded episodes (of one split, if given), ascending. */
  iterations(runId: number, split?: EpisodeFilter['split']): number[] {
    const rows = split
      ? this.db.prepare('SELECT DISTINCT iteration FROM episodes WHERE run_id = ? AND split = ? ORDER BY iteration').all(runId, split)
      : this.db.prepare('SELECT DISTINCT iteration FROM episodes WHERE run_id = ? ORDER BY iteration').all(runId);
    return (rows as Array<{ iteration: number }>).map((r) => r.iteration);
  }

  /**
   * Export rows of the given runs in insertion order, paged by id (see
   * MetricsRepository.exportRows for why not one open `.iterate()`).
   */
  *exportRows(runIds: number[], pageSize = 2000): Generator<ExportRow> {
    const page = this.db.prepare(
      `SELECT ${selectList(EPISODE_COLUMNS)} FROM episodes WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?`,
    );
    for (const runId of runIds) {
      let after = 0;
      for (;;) {
        const rows = page.all(runId, after, pageSize) as Array<Record<string, unknown>>;
        for (const raw of rows) yield decodeRow(EPISODE_COLUMNS, raw);
        if (rows.length < pageSize) break;
        after = rows[rows.length - 1].id as number;
      }
    }
  }
}
