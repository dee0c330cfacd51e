import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { RUN_COLUMNS, decodeRow, selectList, toRecord } from '../columns';
import { StoreError } from '../errors';
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

/** A not-yet-finished run and the process recorded as training it. */
export interface RunProcessInfo {
  id: number;
  status: RunStatus;
  createdAt: number;
  trainerPid: number | null;
  trainerHost: string | null;
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

const SUMMARY_SQL = `SELECT ${selectList(RUN_COLUMNS)},
  (SELECT MAX(m.iteration) FROM metrics m WHERE m.run_id = runs.id) AS iterations,
  (SELECT MAX(m.value) FROM metrics m
     WHERE m.run_id = runs.id AND m.name >= 'val/' AND m.name < 'val0' AND m.name GLOB 'val/*/success') AS best_val_success
  FROM runs`;

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
   * Forgets everything a run recorded after `iteration` (metrics, episodes with their turns,
   * checkpoints), in one transaction: resuming from a checkpoint at k must not leave
   * overlapping steps behind.
   */
  truncateAfter(runId: number, iteration: number): { metrics: number; episodes: number; checkpoints: number } {
    return this.db.transaction(() => ({
      metrics: this.db.prepare('DELETE FROM metrics WHERE run_id = ? AND iteration > ?').run(runId, iteration).changes,
      episodes: this.db.prepare('DELETE FROM episodes WHERE run_id = ? AND iteration > ?').run(runId, iteration).changes,
      checkpoints: this.db
        .prepare('DELETE FROM checkpoints WHERE run_id = ? AND iteration > ?')
        .run(runId, iteration).changes,
    }))();
  }

  /** Records which process (pid on host) trains the run, for start-up recovery. */
  setTrainerProcess(id: number, pid: number, host: string): void {
    const info = this.db.prepare('UPDATE runs SET trainer_pid = ?, trainer_host = ? WHERE id = ?').run(pid, host, id);
    if (info.changes === 0) throw new StoreError('RUN_NOT_FOUND', `unknown run ${id}`);
  }

  /** Runs still marked queued, running or stopping, with the process recorded as training them. */
  unfinished(): RunProcessInfo[] {
    const rows = this.db
      .prepare(
        `SELECT id, status, created_at, trainer_pid, trainer_host FROM runs
         WHERE status IN ('queued', 'running', 'stopping') ORDER BY id`,
      )
      .all() as Array<{ id: number; status: RunStatus; created_at: number; trainer_pid: number | null; trainer_host: string | null }>;
    return rows.map((r) => ({
      id: r.id,
      status: r.status,
      createdAt: r.created_at,
      trainerPid: r.trainer_pid,
      trainerHost: r.trainer_host,
    }));
  }

  /**
   * Every run's status and last logged iteration: a cheap fingerprint to poll for changes
   * (one index lookup per run).
   */
  progress(): RunProgress[] {
    return this.db
      .prepare(
        `SELECT id, name, status, tags, notes,
           (SELECT MAX(m.iteration) FROM metrics m WHERE m.run_id = runs.id) AS iteration
         FROM runs ORDER BY id`,
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
