import type { Store } from '../store/db';
import type { JobState, SlurmResources } from './slurm';

/** A run of a sweep sent to a cluster, as the cluster_jobs table keeps it (migration 0006). */
export interface ClusterJob {
  id: number;
  sweep: string;
  seedGroup: string;
  name: string;
  seed: number;
  executor: 'slurm';
  loginHost: string | null;
  bundleDir: string;
  remoteBundleDir: string;
  trainArgs: string[];
  turnlab: string;
  resources: SlurmResources;
  jobId: string | null;
  attempt: number;
  state: JobState;
  reason: string | null;
  lastIteration: number | null;
  runId: number | null;
  importedAttempt: number | null;
  submittedAt: number;
  updatedAt: number;
}

const SELECT = `SELECT id, sweep, seed_group AS seedGroup, name, seed, executor, login_host AS loginHost, bundle_dir AS bundleDir, remote_bundle_dir AS remoteBundleDir, train_args AS trainArgs, turnlab, resources,
  job_id AS jobId, attempt, state, reason, last_iteration AS lastIteration, run_id AS runId, imported_attempt AS importedAttempt,
  submitted_at AS submittedAt, updated_at AS updatedAt FROM cluster_jobs`;

export type NewClusterJob = Pick<ClusterJob, 'sweep' | 'seedGroup' | 'name' | 'seed' | 'loginHost' | 'bundleDir' | 'remoteBundleDir' | 'trainArgs' | 'turnlab' | 'resources'>;

type Raw = Omit<ClusterJob, 'trainArgs' | 'resources'> & { trainArgs: string; resources: string };
const parse = (raw: unknown): ClusterJob | undefined =>
  raw === undefined ? undefined : { ...(raw as Raw), trainArgs: JSON.parse((raw as Raw).trainArgs) as string[], resources: JSON.parse((raw as Raw).resources) as SlurmResources };

export class ClusterJobs {
  constructor(private readonly store: Store) {}

  list(): ClusterJob[] {
    return this.store.connection.prepare(`${SELECT} ORDER BY id`).all().map((raw) => parse(raw)!);
  }

  get(id: number): ClusterJob | undefined {
    return parse(this.store.connection.prepare(`${SELECT} WHERE id = ?`).get(id));
  }

  /** By row id, Slurm job id (`12_3`, `15`) or run name. */
  resolve(ref: string): ClusterJob | undefined {
    const db = this.store.connection;
    if (/^\d+$/.test(ref)) {
      const byId = this.get(Number(ref));
      if (byId) return byId;
    }
    return parse(db.prepare(`${SELECT} WHERE job_id = ?`).get(ref) ?? db.prepare(`${SELECT} WHERE name = ? ORDER BY id DESC`).get(ref));
  }

  insert(jobs: NewClusterJob[]): ClusterJob[] {
    const now = Date.now();
    const statement = this.store.connection.prepare(
      `INSERT INTO cluster_jobs (sweep, seed_group, name, seed, executor, login_host, bundle_dir, remote_bundle_dir, train_args, turnlab,
         resources, submitted_at, updated_at)
       VALUES (?, ?, ?, ?, 'slurm', ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    return this.store.transaction(() =>
      jobs.map((j) => this.get(Number(statement.run(
            j.sweep, j.seedGroup, j.name, j.seed, j.loginHost, j.bundleDir, j.remoteBundleDir, JSON.stringify(j.trainArgs), j.turnlab,
            JSON.stringify(j.resources), now, now,
          ).lastInsertRowid))!),
    );
  }

  update(id: number, patch: Partial<Pick<ClusterJob, 'jobId' | 'attempt' | 'state' | 'reason' | 'lastIteration' | 'runId' | 'importedAttempt' | 'resources'>>): void {
    const columns: Record<string, string> = {
      resources: 'resources',
      jobId: 'job_id',
      attempt: 'attempt',
      state: 'state',
      reason: 'reason',
      lastIteration: 'last_iteration',
      runId: 'run_id',
      importedAttempt: 'imported_attempt',
    };
    const keys = Object.keys(patch) as Array<keyof typeof patch>;
    if (keys.length === 0) return;
    this.store.connection
      .prepare(`UPDATE cluster_jobs SET ${keys.map((k) => `${columns[k]} = ?`).join(', ')}, updated_at = ? WHERE id = ?`)
      .run(...keys.map((k) => (k === 'resources' ? JSON.stringify(patch[k]) : (patch[k] ?? null))), Date.now(), id);
  }

  remove(ids: number[]): void {
    const statement = this.store.connection.prepare('DELETE FROM cluster_jobs WHERE id = ?');
    this.store.transaction(() => ids.forEach((id) => statement.run(id)));
  }
}
