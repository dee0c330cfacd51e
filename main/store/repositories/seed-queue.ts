import type Database from 'better-sqlite3';

/** The process that holds queued seeds and will start them. */
export interface SeedQueueOwner {
  pid: number;
  host: string;
  /** When that process started (epoch ms): a later process with the same pid is another one. */
  startedAt: number;
}

export interface QueuedSeedRow {
  group: string;
  seed: number;
  runName: string;
  owner: SeedQueueOwner;
  queuedAt: number;
}

/** A seed the group's stop reached before it started: it never will. */
const CANCELLED = 'stopped_at IS NOT NULL AND started_at IS NULL';

interface RawRow {
  group_name: string;
  seed: number;
  run_name: string;
  owner_pid: number;
  owner_host: string;
  owner_started_at: number;
  queued_at: number;
}

/**
 * The seeds of groups waiting for a slot (migration 0010). The owner starts a seed only by
 * taking its row, so a group stopped by any process starts nothing more; whether an owner still
 * lives is decided by the services, which remove the rows of one that died.
 */
export class SeedQueueRepository {
  constructor(private readonly db: Database.Database) {}

  enqueue(group: string, seeds: ReadonlyArray<{ seed: number; runName: string }>, owner: SeedQueueOwner, now = Date.now()): void {
    // A group name is fresh among the runs, but a group whose owner died before starting any
    // seed left rows under it: the new group takes them over.
    const insert = this.db.prepare(
      `INSERT OR REPLACE INTO seed_group_queue (group_name, seed, run_name, owner_pid, owner_host, owner_started_at, queued_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db.transaction(() => {
      for (const s of seeds) insert.run(group, s.seed, s.runName, owner.pid, owner.host, owner.startedAt, now);
    })();
  }

  /** Marks the seed started; false when the group was stopped (or the seed taken) meanwhile. */
  take(group: string, seed: number, now = Date.now()): boolean {
    const result = this.db
      .prepare('UPDATE seed_group_queue SET started_at = ? WHERE group_name = ? AND seed = ? AND started_at IS NULL AND stopped_at IS NULL')
      .run(now, group, seed);
    return result.changes === 1;
  }

  /** Marks the group stopped; returns the seeds that were still waiting, which now never start. */
  stop(group: string, now = Date.now()): number[] {
    // Immediate: a deferred transaction that reads first cannot take the write lock after a
    // trainer's commit (SQLITE_BUSY at once, busy_timeout or not): `turnlab stop --group` beside
    // a training seed failed with "database is locked" on a loaded machine.
    return this.db
      .transaction(() => {
        const waiting = this.db
          .prepare('SELECT seed FROM seed_group_queue WHERE group_name = ? AND started_at IS NULL AND stopped_at IS NULL ORDER BY seed')
          .all(group) as Array<{ seed: number }>;
        this.db.prepare('UPDATE seed_group_queue SET stopped_at = ? WHERE group_name = ? AND stopped_at IS NULL').run(now, group);
        return waiting.map((r) => r.seed);
      })
      .immediate();
  }

  isStopped(group: string): boolean {
    return this.db.prepare('SELECT 1 FROM seed_group_queue WHERE group_name = ? AND stopped_at IS NOT NULL LIMIT 1').get(group) !== undefined;
  }

  /** Whether any row, waiting or not, belongs to the group. */
  has(group: string): boolean {
    return this.db.prepare('SELECT 1 FROM seed_group_queue WHERE group_name = ? LIMIT 1').get(group) !== undefined;
  }

  /** Seeds not started and not stopped, oldest group first, each group by seed. */
  waiting(): QueuedSeedRow[] {
    return this.rows('started_at IS NULL AND stopped_at IS NULL');
  }

  /** Seeds a stop cancelled before they started, kept after their owner ends so the group still lists them. */
  cancelled(): QueuedSeedRow[] {
    return this.rows(CANCELLED);
  }

  private rows(where: string): QueuedSeedRow[] {
    const rows = this.db
      .prepare(
        `SELECT group_name, seed, run_name, owner_pid, owner_host, owner_started_at, queued_at FROM seed_group_queue
         WHERE ${where} ORDER BY queued_at, group_name, seed`,
      )
      .all() as RawRow[];
    return rows.map((r) => ({
      group: r.group_name,
      seed: r.seed,
      runName: r.run_name,
      owner: { pid: r.owner_pid, host: r.owner_host, startedAt: r.owner_started_at },
      queuedAt: r.queued_at,
    }));
  }

  /** The name of every group with rows, waiting or started. */
  groups(): string[] {
    return (this.db.prepare('SELECT DISTINCT group_name FROM seed_group_queue').all() as Array<{ group_name: string }>).map((r) => r.group_name);
  }

  /** Every process that holds rows still to start or started. */
  owners(): SeedQueueOwner[] {
    const rows = this.db.prepare(`SELECT DISTINCT owner_pid, owner_host, owner_started_at FROM seed_group_queue WHERE NOT (${CANCELLED})`).all() as RawRow[];
    return rows.map((r) => ({ pid: r.owner_pid, host: r.owner_host, startedAt: r.owner_started_at }));
  }

  /** Removes the rows the owner wrote for the group (every group of the owner without one), all but the cancelled seeds. */
  release(owner: SeedQueueOwner, group?: string): void {
    const where = `owner_pid = ? AND owner_host = ? AND owner_started_at = ? AND NOT (${CANCELLED})`;
    if (group === undefined) this.db.prepare(`DELETE FROM seed_group_queue WHERE ${where}`).run(owner.pid, owner.host, owner.startedAt);
    else this.db.prepare(`DELETE FROM seed_group_queue WHERE ${where} AND group_name = ?`).run(owner.pid, owner.host, owner.startedAt, group);
  }
}
