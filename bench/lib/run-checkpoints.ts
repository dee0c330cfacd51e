/**
 * A run's kept checkpoints and its warm start's (iter-0, `warm_start.save_checkpoint`), read
 * read-only from a data folder. A fork (`turnlab resume ckpt:N --fork`) keeps no iter-0 of its
 * own: its warm start is up the parent chain. A run started from another's policy
 * (`model.path=<iter-0 folder>`, `warm_start.steps: 0`) has it in its config; so does one that ran
 * expert iteration from there, whose own iter-0 is then what expert iteration made of it.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';

export interface KeptCheckpoint {
  iteration: number;
  /** Relative to the data folder, or absolute (a `model.path`). */
  path: string;
}

export interface RunCheckpoints {
  checkpoints: KeptCheckpoint[];
  /** The warm start's policy, or null when neither the run nor a parent kept one. */
  warm: KeptCheckpoint | null;
}

export function runCheckpoints(dataDir: string, run: number): RunCheckpoints {
  const db = new Database(join(dataDir, 'turnlab.sqlite'), { readonly: true, fileMustExist: true });
  try {
    // A warm-start checkpoint (warm_start.save_freq, a folder warm-start-<step>) holds no finished policy; older files lack its column.
    const kept = (id: number) => (db.prepare('SELECT iteration, path FROM checkpoints WHERE run_id = ? ORDER BY iteration').all(id) as KeptCheckpoint[]).filter((c) => !/warm-start-\d+$/.test(c.path));
    const checkpoints = kept(run);
    const config = (db.prepare('SELECT config FROM runs WHERE id = ?').get(run) as { config: string } | undefined)?.config;
    const started = config ? (JSON.parse(config) as { model?: { path?: string | null }; expert_iteration?: { rounds?: number } }) : null;
    const start = started?.model?.path ?? null;
    if (start && (started?.expert_iteration?.rounds ?? 0) > 0) return { checkpoints, warm: { iteration: 0, path: start } };
    let warm = checkpoints.find((c) => c.iteration === 0) ?? null;
    for (let id: number | null = run; !warm && id !== null; ) {
      id = (db.prepare('SELECT parent_run_id AS parent FROM runs WHERE id = ?').get(id) as { parent: number | null } | undefined)?.parent ?? null;
      if (id !== null) warm = kept(id).find((c) => c.iteration === 0) ?? null;
    }
    if (!warm && start) warm = { iteration: 0, path: start };
    return { checkpoints, warm };
  } finally {
    db.close();
  }
}
