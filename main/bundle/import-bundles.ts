import { randomUUID } from 'node:crypto';
import { UNFINISHED_STATUSES } from '../store/types';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { checkpointsDir } from '../paths';
import type { Store } from '../store/db';
import { bundleRuns, openBundle, readSnapshot, type BundleRunRow, type OpenBundle } from './bundle-file';
import { copyRun, runFingerprint } from './copy-run';

/**
 * `turnlab import FOLDER...`: merges run bundles into the local store. Every bundle is opened and
 * checked first (manifest, SQLite integrity, schema, checkpoint files), so a damaged one refuses
 * the whole import before anything is written; then all runs are copied in one transaction of
 * the local store, their checkpoint folders staged beside it and moved into place after the
 * commit. A run is known by its bundle's id and its id in the bundle: importing it again adds
 * nothing, and a run that changed since (a task resumed in the same bundle) replaces its rows.
 */

/**
 * `present`: the run is in this data folder already, not by an import (a bundle exported from
 * here, or from a copy of this folder): adding it again would list every run twice.
 */
export type ImportAction = 'added' | 'updated' | 'unchanged' | 'live' | 'present';

export interface ImportedRun {
  bundle: string;
  sourceRunId: number;
  name: string;
  /** The run's id in the local store; null for a run still training (`live`), left for later. */
  runId: number | null;
  action: ImportAction;
  /**
   * An added run that is another copy of a run here, changed since the two parted (resumed or
   * edited in another data folder): same name and creation time, another config. Both are kept.
   */
  copyOf?: number;
}

/** A run whose trainer beat its heartbeat this recently is still training: not imported yet. */
export const LIVE_HEARTBEAT_MS = 60_000;
function sourceKey(bundle: OpenBundle, runId: number): string {
  return `${bundle.manifest.bundleId}:${runId}`;
}

function isLive(run: BundleRunRow, now: number): boolean {
  return UNFINISHED_STATUSES.has(run.status) && run.trainer_heartbeat_at !== null && now - run.trainer_heartbeat_at <= LIVE_HEARTBEAT_MS;
}

export function importBundles(store: Store, folders: string[], options: { now?: number } = {}): ImportedRun[] {
  const now = options.now ?? Date.now();
  const bundles: OpenBundle[] = [];
  const stage = join(checkpointsDir(store.dataDir), `.import-${randomUUID()}`);
  try {
    for (const folder of folders) bundles.push(openBundle(folder, { verify: true, nativeBinding: process.env.TURNLAB_SQLITE_BINDING || undefined }));
    const moves = new Map<number, string>();
    const db = store.connection;
    const findImport = db.prepare('SELECT run_id, fingerprint FROM run_imports WHERE source = ?');
    // A run is created once, so its creation time to the millisecond and its config name it
    // across data folders; an id does not (a bundle numbers its runs from 1).
    const findSameRun = db.prepare('SELECT id FROM runs WHERE created_at = ? AND config_hash IS ? ORDER BY id LIMIT 1');
    const findCopy = db.prepare('SELECT id FROM runs WHERE created_at = ? AND name = ? ORDER BY id LIMIT 1');
    const saveImport = db.prepare(
      `INSERT INTO run_imports (run_id, source, bundle_path, fingerprint, imported_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (run_id) DO UPDATE SET bundle_path = excluded.bundle_path, fingerprint = excluded.fingerprint, imported_at = excluded.imported_at`,
    );
    const outcomes = store.transaction(() => {
      const results: ImportedRun[] = [];
      for (const bundle of bundles) {
        readSnapshot(bundle, () => {
          const runIds = new Map<number, number>();
          const checkpointIds = new Map<number, number>();
          for (const run of bundleRuns(bundle)) {
            const key = sourceKey(bundle, run.id);
            const known = findImport.get(key) as { run_id: number; fingerprint: string } | undefined;
            const result = { bundle: bundle.dir, sourceRunId: run.id, name: run.name };
            if (isLive(run, now)) {
              results.push({ ...result, runId: known?.run_id ?? null, action: 'live' });
              continue;
            }
            const fingerprint = runFingerprint(bundle.db, run.id);
            const here = known ? undefined : (findSameRun.get(run.created_at, run.config_hash) as { id: number } | undefined);
            const kept = known && known.fingerprint === fingerprint ? known.run_id : here?.id;
            if (kept !== undefined) {
              // Runs forked from this one in the same bundle link to the local copy.
              runIds.set(run.id, kept);
              for (const c of db.prepare('SELECT id, iteration FROM checkpoints WHERE run_id = ?').all(kept) as Array<{ id: number; iteration: number }>) {
                const sourceCheckpoint = bundle.db.prepare('SELECT id FROM checkpoints WHERE run_id = ? AND iteration = ?').get(run.id, c.iteration) as { id: number } | undefined;
                if (sourceCheckpoint) checkpointIds.set(sourceCheckpoint.id, c.id);
              }
              results.push({ ...result, runId: kept, action: here ? 'present' : 'unchanged' });
              continue;
            }
            const copyOf = known ? undefined : (findCopy.get(run.created_at, run.name) as { id: number } | undefined)?.id;
            const runId = copyRun(bundle.db, db, run.id, {
              intoRunId: known?.run_id,
              runIds,
              checkpointIds,
              // Its trainer is gone without ending the run (killed, out of time): as the app marks such a run.
              status: UNFINISHED_STATUSES.has(run.status) ? 'interrupted' : undefined,
              placeCheckpoint: (path, localRunId) => {
                const staged = join(stage, `run-${localRunId}`, basename(path));
                cpSync(resolve(bundle.dir, path), staged, { recursive: true });
                moves.set(localRunId, join(stage, `run-${localRunId}`));
                return relative(store.dataDir, join(checkpointsDir(store.dataDir), `run-${localRunId}`, basename(path)));
              },
            });
            saveImport.run(runId, key, bundle.dir, fingerprint, now);
            results.push({ ...result, runId, action: known ? 'updated' : 'added', ...(copyOf !== undefined ? { copyOf } : {}) });
          }
        });
      }
      return results;
    });
    // After the commit: each imported or updated run's checkpoints replace what it had.
    for (const result of outcomes) {
      if ((result.action !== 'added' && result.action !== 'updated') || result.runId === null) continue;
      const final = join(checkpointsDir(store.dataDir), `run-${result.runId}`);
      rmSync(final, { recursive: true, force: true });
      const staged = moves.get(result.runId);
      if (staged && existsSync(staged)) {
        mkdirSync(checkpointsDir(store.dataDir), { recursive: true });
        renameSync(staged, final);
      }
    }
    return outcomes;
  } finally {
    for (const bundle of bundles) bundle.db.close();
    rmSync(stage, { recursive: true, force: true });
  }
}
