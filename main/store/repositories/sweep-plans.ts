import type Database from 'better-sqlite3';
import type { SweepPlanDto } from '../../../preload/contract';

interface RawRow {
  name: string;
  axes: string;
  seeds: string;
  executor: 'local' | 'slurm';
  created_at: number;
  skipped: string;
}

/** What each sweep was asked to train, written as it starts (migrations 0011, 0012). */
export class SweepPlansRepository {
  constructor(private readonly db: Database.Database) {}

  record(plan: SweepPlanDto): void {
    this.db
      .prepare('INSERT OR REPLACE INTO sweep_plans (name, axes, seeds, executor, created_at, skipped) VALUES (?, ?, ?, ?, ?, ?)')
      .run(plan.name, JSON.stringify(plan.axes), JSON.stringify(plan.seeds), plan.executor, plan.createdAt, JSON.stringify(plan.skipped));
  }

  list(): SweepPlanDto[] {
    const rows = this.db.prepare('SELECT name, axes, seeds, executor, created_at, skipped FROM sweep_plans ORDER BY created_at DESC, name').all() as RawRow[];
    return rows.map((r) => ({ name: r.name, axes: JSON.parse(r.axes) as SweepPlanDto['axes'], seeds: JSON.parse(r.seeds) as number[], executor: r.executor, createdAt: r.created_at, skipped: JSON.parse(r.skipped) as string[][] }));
  }

  /** Taken names, so a new sweep is named apart from one that has no run yet. */
  names(): string[] {
    return (this.db.prepare('SELECT name FROM sweep_plans').all() as Array<{ name: string }>).map((r) => r.name);
  }
}
