// Resume refuses a damaged checkpoint before it deletes anything (issue 16 item 3), and
// keep_last_n prunes across resumes while keeping the best checkpoint (item 8), and a full
// database fails the run with a message naming the file (item 5).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resumeFromCheckpoint, runCheckpointDir, trainFromConfigFile } from '../../main/services/training';
import { resolveCheckpoint } from '../../main/services/checkpoint-refs';
import { openStore } from '../../main/store/db';
import { sha256 } from '../../trainer-core/train/checkpoint-files';
import { checkpointsToPrune } from '../../trainer-core/train/checkpoint-retention';
import { makeTempDir } from '../helpers/fixtures';
import { TINY_BANDIT_OVERRIDES } from '../helpers/tiny-bandit';

const BANDIT = resolve(import.meta.dirname, '../../configs/bandit.yaml');
const TINY = [...TINY_BANDIT_OVERRIDES, 'warm_start.steps=3', 'trainer.val_before_train=false', 'trainer.save_freq=1'];

const tmp = makeTempDir('turnlab-ckpt-');
const store = openStore(tmp.dir, { create: true });
afterAll(() => {
  store.close();
  tmp.cleanup();
});

/** Replaces a file of a checkpoint and updates its manifest, so only the contents are wrong. */
function replaceWithManifest(dir: string, name: string, text: string): void {
  writeFileSync(join(dir, name), text);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: Record<string, { size: number; sha256: string }> };
  manifest.files[name] = { size: Buffer.byteLength(text), sha256: sha256(text) };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
}

describe('resume checks the whole checkpoint before changing anything', () => {
  it('refuses a state.json that passes the manifest but is empty or from another iteration, keeping every later iteration', async () => {
    const { run } = await trainFromConfigFile(store, BANDIT, {
      overrides: [...TINY, 'trainer.total_training_steps=4', 'trainer.test_freq=0', 'trainer.keep_last_n=10'],
    });
    const checkpoints = store.checkpoints.listByRun(run.id);
    expect(checkpoints.map((c) => c.iteration)).toEqual([1, 2, 3, 4]);
    const second = checkpoints[1];
    const dir = resolve(store.dataDir, second.path);
    const original = readFileSync(join(dir, 'state.json'), 'utf8');
    const stored = () => ({
      iterations: store.metrics.series(run.id, 'actor/lr').map((p) => p.iteration),
      checkpoints: store.checkpoints.listByRun(run.id).map((c) => c.iteration),
      folders: readdirSync(runCheckpointDir(store, run.id)).sort(),
      status: store.runs.get(run.id)?.status,
    });
    const before = stored();
    expect(before.iterations).toEqual([1, 2, 3, 4]);

    replaceWithManifest(dir, 'state.json', '{}');
    await expect(resumeFromCheckpoint(store, `ckpt:${second.id}`, { overrides: ['trainer.total_training_steps=5'] })).rejects.toThrow(
      /state\.json is not a training state: `iteration` is missing/,
    );
    expect(stored()).toEqual(before);

    replaceWithManifest(dir, 'state.json', readFileSync(join(resolve(store.dataDir, checkpoints[0].path), 'state.json'), 'utf8'));
    await expect(resumeFromCheckpoint(store, `ckpt:${second.id}`, { overrides: ['trainer.total_training_steps=5'] })).rejects.toThrow(
      /state\.json field `iteration` is 1, but the folder is iter-2/,
    );
    expect(stored()).toEqual(before);

    // A config with nothing left to train would only delete iterations 3 and 4.
    replaceWithManifest(dir, 'state.json', original);
    await expect(resumeFromCheckpoint(store, `ckpt:${second.id}`, { overrides: ['trainer.total_training_steps=2'] })).rejects.toThrow(
      /total_training_steps` is 2, but checkpoint .* is at iteration 2: nothing to train; raise it above 2 \(e.g. trainer.total_training_steps=12\)$/,
    );
    expect(stored()).toEqual(before);
  });
});

describe('keep_last_n', () => {
  it('keeps the newest n and the best one by validation success', () => {
    const c = (iteration: number, valSuccess: number | null) => ({ path: `iter-${iteration}`, iteration, valSuccess });
    const pruned = checkpointsToPrune([c(1, 0.2), c(2, 0.9), c(3, null), c(4, 0.9), c(5, 0.1), c(6, null)], 2);
    expect(pruned.map((p) => p.iteration)).toEqual([1, 2, 3]);
  });

  it('prunes checkpoints written before a resume, keeping the best', async () => {
    const overrides = [...TINY, 'trainer.test_freq=1', 'warm_start.steps=30'];
    const { run } = await trainFromConfigFile(store, BANDIT, { overrides: [...overrides, 'trainer.keep_last_n=10', 'trainer.total_training_steps=3'] });
    // Make iteration 2 the best by far, so the outcome does not hang on how this seed learns:
    // the retention reads each old checkpoint's validation success from its state.json.
    const dir = runCheckpointDir(store, run.id);
    for (const [iteration, valSuccess] of [[1, 0], [2, 2], [3, 0]]) {
      const folder = join(dir, `iter-${iteration}`);
      const state = JSON.parse(readFileSync(join(folder, 'state.json'), 'utf8')) as Record<string, unknown>;
      replaceWithManifest(folder, 'state.json', JSON.stringify({ ...state, valSuccess }));
    }
    await resumeFromCheckpoint(store, String(run.id), { overrides: ['trainer.total_training_steps=6', 'trainer.keep_last_n=1'] });
    // Iterations 1 and 3 from before the resume are pruned, the best (2) and the newest (6) kept.
    expect(store.checkpoints.listByRun(run.id).map((c) => c.iteration)).toEqual([2, 6]);
    const folders = readdirSync(dir).filter((f) => !f.startsWith('.'));
    expect(folders.sort()).toEqual(['iter-2', 'iter-6']);
    expect(existsSync(join(dir, 'iter-3'))).toBe(false);

    // A pruned checkpoint's id says it is gone, not unknown; a folder as `turnlab show` prints it
    // (relative to the data folder) names its checkpoint from any working folder.
    const pruned = Math.max(...store.checkpoints.listByRun(run.id).map((c) => c.id)) - 1;
    expect(() => resolveCheckpoint(store, `ckpt:${pruned}`)).toThrow(`checkpoint ${pruned} no longer exists: a run keeps its last trainer.keep_last_n checkpoints`);
    expect(() => resolveCheckpoint(store, 'ckpt:99999')).toThrow("unknown checkpoint 'ckpt:99999'");
    const kept = store.checkpoints.listByRun(run.id)[0];
    expect(resolveCheckpoint(store, kept.path)).toMatchObject({ id: kept.id, iteration: 2 });
  });
});

// An iteration's episodes and turns must take more pages than the slack below, so the first
// iteration's write is the one that finds the database full, whatever the config's length.
const ITERATION_LARGER_THAN_SLACK = ['es_manager.train.env_groups=16', 'es_manager.train.env_configs.n_groups=[16]', 'es_manager.train.group_size=8'];

interface SqlHandle {
  pragma(source: string, options?: { simple: boolean }): unknown;
  prepare(sql: string): { get(): { n: number } | undefined };
}

describe('a full database', () => {
  it('fails the run with a message naming the database file', async () => {
    const full = makeTempDir('turnlab-full-');
    const small = openStore(full.dir, { create: true });
    try {
      // SQLite's own limit stands in for a full disk: once the run row exists, the file may grow
      // only by what rewriting that row takes (SQLite writes an updated row's overflow pages before
      // it frees the old ones, so a row holding a long config needs that many pages again) plus
      // two, room for the run's small writes before its first iteration and for its final status
      // and error, not for an iteration.
      const db = (small as unknown as { db: SqlHandle }).db;
      const error = await trainFromConfigFile(small, BANDIT, {
        overrides: [...TINY, ...ITERATION_LARGER_THAN_SLACK, 'trainer.total_training_steps=2', 'trainer.test_freq=0'],
        onRunCreated: () => {
          const pageSize = Number(db.pragma('page_size', { simple: true }));
          const rowBytes = Number(db.prepare('SELECT length(CAST(config AS BLOB)) AS n FROM runs ORDER BY id DESC LIMIT 1').get()?.n);
          const slack = Math.ceil(rowBytes / (pageSize - 4)) + 2;
          db.pragma(`max_page_count = ${Number(db.pragma('page_count', { simple: true })) + slack}`);
        },
      }).catch((e: unknown) => e);
      const message = `the database ${small.file} is full: free space on the disk that holds ${full.dir}, then resume the run (SQLITE_FULL)`;
      expect(String(error)).toBe(`StoreError: ${message}`);
      expect(small.runs.get(1)).toMatchObject({ status: 'failed', error: message });
      expect(readdirSync(full.dir).filter((f) => f.includes('.partial'))).toEqual([]);
    } finally {
      small.close();
      full.cleanup();
    }
  });
});
