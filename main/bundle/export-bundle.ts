import { cpSync, existsSync, renameSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { FolderError, makeFolder, notANewFolder } from '../../trainer-core';
import { openStore, type Store } from '../store/db';
import type { RunRecord } from '../store/types';
import { seedGroupOf } from '../../preload/seed-list';
import { copyRun } from './copy-run';
import { BundleError, newManifest, writeManifest } from './manifest';

/**
 * `turnlab export-run RUN --bundle DIR`: writes a run, with the runs it was forked from (so its
 * lineage comes along), as a bundle a colleague can import. The bundle is written under a
 * temporary name beside DIR and renamed when complete, so DIR is never half-written.
 */
export function exportRunBundle(store: Store, ref: string, folder: string): { dir: string; runs: RunRecord[]; iterations: Map<number, number> } {
  const dir = resolve(folder);
  const taken = notANewFolder(dir);
  if (taken !== null) throw new BundleError(`${taken}; choose a new folder for the bundle`);
  const run = store.runs.resolve(ref);
  const chain: RunRecord[] = [run];
  for (let parent = run.parentRunId; parent !== null; ) {
    const record = store.runs.get(parent);
    if (!record || chain.some((r) => r.id === record.id)) break;
    chain.unshift(record);
    parent = record.parentRunId;
  }
  // Each run's last iteration as copied: a run still training has gone on by the time the copy ends.
  const iterations = new Map<number, number>();
  const temp = join(dirname(dir), `.${basename(dir)}.partial-${process.pid}`);
  rmSync(temp, { recursive: true, force: true });
  try {
    // Not Node's recursive mkdir, which spins forever under /proc.
    try {
      makeFolder(temp);
    } catch (error) {
      if (error instanceof FolderError) throw new BundleError(`cannot write the bundle ${dir}: ${error.message}; choose another --bundle`);
      throw error;
    }
    writeManifest(
      temp,
      newManifest({ host: hostname(), name: run.name, seed: run.seed, seedGroup: seedGroupOf(run.tags), config: run.config }),
    );
    const bundle = openStore(temp, { create: true, nativeBinding: process.env.TURNLAB_SQLITE_BINDING || undefined });
    try {
      const source = store.connection;
      source.exec('BEGIN');
      try {
        bundle.transaction(() => {
          const runIds = new Map<number, number>();
          const checkpointIds = new Map<number, number>();
          for (const r of chain) {
            copyRun(source, bundle.connection, r.id, {
              runIds,
              checkpointIds,
              placeCheckpoint: (path, runId) => {
                const rel = join('checkpoints', `run-${runId}`, basename(path));
                const source = resolve(store.dataDir, path);
                if (!existsSync(source)) {
                  throw new BundleError(`run ${r.id} (${r.name}): its checkpoint folder ${source} is gone; restore it, or delete that checkpoint (the Checkpoints view), then export again`);
                }
                cpSync(source, join(temp, rel), { recursive: true });
                return rel;
              },
            });
            iterations.set(r.id, store.runs.summary(r.id)?.iterations ?? 0);
          }
        });
      } finally {
        source.exec('COMMIT');
      }
    } finally {
      bundle.close();
    }
    rmSync(dir, { recursive: true, force: true });
    renameSync(temp, dir);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
  return { dir, runs: chain, iterations };
}
