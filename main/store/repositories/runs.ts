import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { RUN_COLUMNS, decodeRow, selectList, toRecord } from '../columns';
import { StoreError } from '../errors';
import type { RunFilterChoicesDto, RunPageDto, RunPageQueryDto, UnknownRunColumnDto } from '../../../preload/contract';
import { filterChoices, runPage, unknownColumnsOf } from './run-page';
import { storedJson, storedValue } from '../text';
import {
  RUN_STATUSES,
  type ExportRow,
  type NewRun,
  type RunPatch,
  type RunRecord,
  type RunStatus,
  type RunSummary,
} from '../types';

/** A run and the process recorded as owning (training) it. */
export interface RunProcessInfo {
  id: number;
  name: string;
  status: RunStatus;
  createdAt: number;
  trainerPid: number | null;
  trainerHost: string | null;
  /** When the owner took the run (epoch ms). */
  trainerStartedAt: number | null;
  /** The owner's last sign of life (epoch ms). */
  heartbeatAt: number | null;
}

/** Who takes a run: this process, now. */
export interface RunOwnerClaim {
  pid: number;
  host: string;
  now: number;
}

const PROCESS_INFO_SQL = `SELECT id, name, status, created_at, trainer_pid, trainer_host, trainer_started_at, trainer_heartbeat_at FROM runs`;

interface ProcessInfoRow {
  id: number;
  name: string;
  status: RunStatus;
  created_at: number;
  trainer_pid: number | null;
  trainer_host: string | null;
  trainer_started_at: number | null;
  trainer_heartbeat_at: number | null;
}

function toProcessInfo(r: ProcessInfoRow): RunProcessInfo {
  return {
    id: r.id,
    name: r.name,
    status: r.status,
    createdAt: r.created_at,
    trainerPid: r.trainer_pid,
    trainerHost: r.trainer_host,
    trainerStartedAt: r.trainer_started_at,
    heartbeatAt: r.trainer_heartbeat_at,
  };
}

/** What changes while runs train, per run (tags as stored JSON text). */
export interface RunProgress {
  id: number;
  name: string;
  status: RunStatus;
  tags: string;
  notes: string;
  iteration: number | null;
}

/** JSON with object keys sorted, so equal configs hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** sha256 of the config's canonical JSON. */
export function hashConfig(config: unknown): string {
  return createHash('sha256').update(canonicalJson(config)).digest('hex');
}

function checkStatus(status: string): void {
  if (!(RUN_STATUSES as readonly string[]).includes(status)) {
    throw new StoreError('INVALID_INPUT', `unknown run status '${status}' (expected one of ${RUN_STATUSES.join(', ')})`);
  }
}

// last_iteration and best_val_success are kept by triggers on metrics (migration 0007).
const SUMMARY_SQL = `SELECT ${selectList(RUN_COLUMNS)}, last_iteration AS iterations, best_val_success FROM runs`;

// Columns a patch may change, mapped to how their value is stored.
const PATCHABLE: Record<keyof RunPatch, { column: string; encode?: (v: unknown) => unknown }> = {
  name: { column: 'name' },
  status: { column: 'status' },
  startedAt: { column: 'started_at' },
  finishedAt: { column: 'finished_at' },
  backend: { column: 'backend' },
  device: { column: 'device' },
  error: { column: 'error' },
  tags: { column: 'tags', encode: storedJson },
  notes: { column: 'notes' },
  config: { column: 'config', encode: storedJson },
  parameterCount: { column: 'parameter_count' },
  warmStartProgress: { column: 'warm_start_progress', encode: storedJson },
};

export class RunsRepository {
  constructor(private readonly db: Database.Database) {}

  create(run: NewRun): RunRecord {
    checkStatus(run.status ?? 'queued');
    const info = this.db
      .prepare(
        `INSERT INTO runs (name, status, created_at, started_at, config, config_hash, seed, env_tags, algorithm,
           backend, device, parent_run_id, parent_checkpoint_id, parent_iteration, tags, notes)
         VALUES (@name, @status, @createdAt, @startedAt, @config, @configHash, @seed, @envTags, @algorithm,
           @backend, @device, @parentRunId, @parentCheckpointId, @parentIteration, @tags, @notes)`,
      )
      .run({
        name: storedValue(run.name),
        status: run.status ?? 'queued',
        createdAt: run.createdAt ?? Date.now(),
        startedAt: run.startedAt ?? null,
        config: storedJson(run.config ?? {}),
        configHash: run.configHash ?? hashConfig(run.config ?? {}),
        seed: run.seed,
        envTags: storedJson(run.envTags),
        algorithm: storedValue(run.algorithm),
        backend: storedValue(run.backend ?? null),
        device: storedValue(run.device ?? null),
        parentRunId: run.parentRunId ?? null,
        parentCheckpointId: run.parentCheckpointId ?? null,
        parentIteration: run.parentIteration ?? null,
        tags: storedJson(run.tags ?? []),
        notes: storedValue(run.notes ?? ''),
      });
    return this.get(Number(info.lastInsertRowid))!;
  }

  get(id: number): RunRecord | undefined {
    const raw = this.db.prepare(`SELECT ${selectList(RUN_COLUMNS)} FROM runs WHERE id = ?`).get(id);
    return raw ? toRecord<RunRecord>(RUN_COLUMNS, raw as Record<string, unknown>) : undefined;
  }

  /** All runs, oldest first, with their iteration count and best validation success. */
  list(): RunSummary[] {
    const rows = this.db.prepare(`${SUMMARY_SQL} ORDER BY runs.id`).all() as Array<Record<string, unknown>>;
    return rows.map((raw) => this.toSummary(raw));
  }

  /** One page of the Runs table, filtered and sorted in SQL (see run-page.ts). */
  /** Of `columns` (config keys, `metric:<name>`), those no run has, each with its nearest. */
  unknownColumns(columns: readonly string[]): UnknownRunColumnDto[] {
    return unknownColumnsOf(this.db, columns);
  }

  /** The statuses, envs, algorithms and tags the runs have (the Runs view's filter choices). */
  filterChoices(): RunFilterChoicesDto {
    return filterChoices(this.db);
  }

  page(query: RunPageQueryDto): RunPageDto {
    return runPage(this.db, query);
  }

  /** The runs with these ids, in that order; unknown ids are left out. */
  summaries(ids: number[]): RunSummary[] {
    const statement = this.db.prepare(`${SUMMARY_SQL} WHERE runs.id = ?`);
    return ids.flatMap((id) => {
      const raw = statement.get(id) as Record<string, unknown> | undefined;
      return raw ? [this.toSummary(raw)] : [];
    });
  }

  summary(id: number): RunSummary | undefined {
    const raw = this.db.prepare(`${SUMMARY_SQL} WHERE runs.id = ?`).get(id);
    return raw ? this.toSummary(raw as Record<string, unknown>) : undefined;
  }

  findByName(name: string): RunRecord[] {
    const rows = this.db.prepare(`SELECT ${selectList(RUN_COLUMNS)} FROM runs WHERE name = ? ORDER BY id`).all(name);
    return rows.map((raw) => toRecord<RunRecord>(RUN_COLUMNS, raw as Record<string, unknown>));
  }

  /**
   * A run named on the command line or in a URL: its id, or its name when that is unique.
   * An id wins over a run that happens to be named like one.
   */
  resolve(ref: string): RunRecord {
    const trimmed = ref.trim();
    if (/^\d+$/.test(trimmed)) {
      const byId = this.get(Number(trimmed));
      if (byId) return byId;
    }
    const byName = this.findByName(trimmed);
    if (byName.length === 1) return byName[0];
    if (byName.length > 1) {
      throw new StoreError(
        'RUN_AMBIGUOUS',
        `run name '${trimmed}' matches runs ${byName.map((r) => r.id).join(', ')}; use the run id instead`,
      );
    }
    throw new StoreError('RUN_NOT_FOUND', `unknown run '${trimmed}' (no run has that id or name; see 'turnlab runs')`);
  }

  /** Runs forked from any of `parentIds` (id and name only: no config is read). */
  forksOf(parentIds: readonly number[]): Array<{ id: number; name: string; parentRunId: number }> {
    if (parentIds.length === 0) return [];
    return this.db
      .prepare(`SELECT id, name, parent_run_id AS parentRunId FROM runs WHERE parent_run_id IN (SELECT value FROM json_each(?)) ORDER BY id`)
      .all(JSON.stringify(parentIds)) as Array<{ id: number; name: string; parentRunId: number }>;
  }

  allIds(): number[] {
    return (this.db.prepare('SELECT id FROM runs ORDER BY id').all() as Array<{ id: number }>).map((r) => r.id);
  }

  update(id: number, patch: RunPatch): RunRecord {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      const target = PATCHABLE[key as keyof RunPatch];
      if (!target) throw new StoreError('INVALID_INPUT', `run field '${key}' cannot be updated`);
      if (key === 'status') checkStatus(value as string);
      sets.push(`${target.column} = ?`);
      values.push(target.encode ? target.encode(value) : storedValue(value));
      // The hash says which runs share a config; it must follow the config it hashes.
      if (key === 'config') {
        sets.push('config_hash = ?');
        values.push(hashConfig(value));
      }
    }
    if (sets.length) {
      const info = this.db.prepare(`UPDATE runs SET ${sets.join(', ')} WHERE id = ?`).run(...values, id);
      if (info.changes === 0) throw new StoreError('RUN_NOT_FOUND', `unknown run ${id}`);
    }
    const run = this.get(id);
    if (!run) throw new StoreError('RUN_NOT_FOUND', `unknown run ${id}`);
    return run;
  }

  /** Deletes the run and, through the foreign keys, all its metrics, episodes, turns and checkpoints. */
  delete(id: number): boolean {
    return this.db.prepare('DELETE FROM runs WHERE id = ?').run(id).changes > 0;
  }

  /**
   * Forgets everything a run recorded after iteration `after` (evaluations, metrics, episodes with
   * their turns, checkpoints), in one transaction: resuming from a checkpoint at k must not leave
   * overlapping steps behind.
   */
  truncateAfter(runId: number, after: number | 'warm start'): { evaluations: number; metrics: number; episodes: number; checkpoints: number } {
    // A run going on from its warm-start checkpoint reports its warm start's losses, iteration 0
    // and RL again: everything it recorded goes, but that checkpoint.
    const iteration = after === 'warm start' ? Number.MIN_SAFE_INTEGER : after;
    const keep = after === 'warm start' ? ' AND warm_start_step IS NULL' : '';
    return this.db.transaction(() => ({
      // Evaluations of the checkpoints dropped here go with them (their episodes by cascade).
      evaluations: this.db.prepare('DELETE FROM evaluations WHERE run_id = ? AND iteration > ?').run(runId, iteration).changes,
      metrics: this.db.prepare('DELETE FROM metrics WHERE run_id = ? AND iteration > ?').run(runId, iteration).changes,
      episodes: this.db.prepare('DELETE FROM episodes WHERE run_id = ? AND iteration > ?').run(runId, iteration).changes,
      checkpoints: this.db
        .prepare(`DELETE FROM checkpoints WHERE run_id = ? AND iteration > ?${keep}`)
        .run(runId, iteration).changes,
    }))();
  }

  /** Records which process (pid on host) owns the run, taken and last heard of at `now`. */
  setTrainerProcess(id: number, pid: number, host: string, now = Date.now()): void {
    const info = this.db
      .prepare('UPDATE runs SET trainer_pid = ?, trainer_host = ?, trainer_started_at = ?, trainer_heartbeat_at = ? WHERE id = ?')
      .run(pid, host, now, now, id);
    if (info.changes === 0) throw new StoreError('RUN_NOT_FOUND', `unknown run ${id}`);
  }

  /** The run's recorded owner, or undefined for an unknown run. */
  processInfo(id: number): RunProcessInfo | undefined {
    const row = this.db.prepare(`${PROCESS_INFO_SQL} WHERE id = ?`).get(id) as ProcessInfoRow | undefined;
    return row ? toProcessInfo(row) : undefined;
  }

  /**
   * Takes the run for `claim` in one IMMEDIATE transaction, unless `holder` says the recorded
   * owner still holds it: then nothing changes and that owner is returned. Null once taken.
   */
  claimOwner(id: number, claim: RunOwnerClaim, holder: (current: RunProcessInfo) => boolean): RunProcessInfo | null {
    return this.db.transaction(() => {
      const current = this.processInfo(id);
      if (!current) throw new StoreError('RUN_NOT_FOUND', `unknown run ${id}`);
      if (holder(current)) return current;
      this.setTrainerProcess(id, claim.pid, claim.host, claim.now);
      return null;
    }).immediate();
  }

  /** The owner's sign of life; false when the run is no longer its (taken over or deleted). */
  heartbeat(id: number, pid: number, host: string, now: number): boolean {
    return (
      this.db
        .prepare('UPDATE runs SET trainer_heartbeat_at = ? WHERE id = ? AND trainer_pid = ? AND trainer_host = ?')
        .run(now, id, pid, host).changes > 0
    );
  }

  /** Gives the run up, if `pid` on `host` still owns it. */
  releaseOwner(id: number, pid: number, host: string): void {
    this.db
      .prepare(
        `UPDATE runs SET trainer_pid = NULL, trainer_host = NULL, trainer_started_at = NULL, trainer_heartbeat_at = NULL
         WHERE id = ? AND trainer_pid = ? AND trainer_host = ?`,
      )
      .run(id, pid, host);
  }

  /**
   * Gives the run up whoever owns it, for a caller that knows that owner is gone (a Slurm job
   * started again); an unfinished run reads `interrupted`, with `error` saying why.
   */
  forgetOwner(id: number, error: string): void {
    this.db
      .prepare(
        `UPDATE runs SET trainer_pid = NULL, trainer_host = NULL, trainer_started_at = NULL, trainer_heartbeat_at = NULL,
         error = CASE WHEN status IN ('queued', 'running', 'stopping') THEN ? ELSE error END,
         status = CASE WHEN status IN ('queued', 'running', 'stopping') THEN 'interrupted' ELSE status END
         WHERE id = ?`,
      )
      .run(error, id);
  }

  /**
   * Marks a queued or running run `stopping`; false when it has ended meanwhile, whose own
   * final status must not be overwritten.
   */
  markStopping(id: number): boolean {
    return this.db.prepare("UPDATE runs SET status = 'stopping' WHERE id = ? AND status IN ('queued', 'running')").run(id).changes > 0;
  }

  /** Runs still marked queued, running or stopping, with the process recorded as owning them. */
  unfinished(): RunProcessInfo[] {
    const rows = this.db
      .prepare(`${PROCESS_INFO_SQL} WHERE status IN ('queued', 'running', 'stopping') ORDER BY id`)
      .all() as ProcessInfoRow[];
    return rows.map(toProcessInfo);
  }

  /**
   * One short transaction of a chunked delete: up to `maxEpisodes` episodes (their turns go
   * with them) or `maxEpisodes` * 8 metrics, else the checkpoints and the run row. Returns
   * how many rows it deleted (0 once the run is gone). A large run deleted in one transaction
   * holds the write lock for seconds, long enough for a trainer's write to time out.
   */
  deleteChunk(id: number, maxEpisodes: number): number {
    return this.db.transaction(() => {
      const episodes = this.db
        .prepare('DELETE FROM episodes WHERE id IN (SELECT id FROM episodes WHERE run_id = ? ORDER BY id LIMIT ?)')
        .run(id, maxEpisodes).changes;
      if (episodes > 0) return episodes;
      const metrics = this.db
        .prepare(
          `DELETE FROM metrics WHERE run_id = ? AND (name, iteration) IN
             (SELECT name, iteration FROM metrics WHERE run_id = ? LIMIT ?)`,
        )
        .run(id, id, maxEpisodes * 8).changes;
      if (metrics > 0) return metrics;
      const checkpoints = this.db.prepare('DELETE FROM checkpoints WHERE run_id = ?').run(id).changes;
      return checkpoints + this.db.prepare('DELETE FROM runs WHERE id = ?').run(id).changes;
    }).immediate();
  }

  /**
   * Every run's status and last logged iteration: a cheap fingerprint to poll for changes
   * (columns of runs, no metrics read).
   */
  progress(): RunProgress[] {
    return this.db
      .prepare(
        `SELECT id, name, status, tags, notes, last_iteration AS iteration FROM runs ORDER BY id`,
      )
      .all() as RunProgress[];
  }

  /** Export rows of the given runs, in the order given. */
  *exportRows(runIds: number[]): Generator<ExportRow> {
    const statement = this.db.prepare(`SELECT ${selectList(RUN_COLUMNS)} FROM runs WHERE id = ?`);
    for (const id of runIds) {
      const raw = statement.get(id);
      if (raw) yield decodeRow(RUN_COLUMNS, raw as Record<string, unknown>);
    }
  }

  private toSummary(raw: Record<string, unknown>): RunSummary {
    return {
      ...toRecord<RunRecord>(RUN_COLUMNS, raw),
      iterations: (raw.iterations as number | null) ?? null,
      bestValSuccess: (raw.best_val_success as number | null) ?? null,
    };
  }
}
