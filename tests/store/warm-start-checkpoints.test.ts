import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { makeTempDir } from '../helpers/fixtures';

const tmp = makeTempDir('turnlab-warm-start-rows-');
const store = openStore(tmp.dir, { create: true });
afterAll(() => {
  store.close();
  tmp.cleanup();
});

describe('warm-start checkpoint rows (migration 13)', () => {
  it('keep one a run, superseded in the same insert by a newer one or by a finished checkpoint', () => {
    const run = store.runs.create({ name: 'warm', config: {}, seed: 0, envTags: ['Bandit'], algorithm: 'grpo' });
    const other = store.runs.create({ name: 'other', config: {}, seed: 0, envTags: ['Bandit'], algorithm: 'grpo' });
    const row = (runId: number, warmStartStep: number | null, iteration = 0) => ({ runId, iteration, path: `checkpoints/run-${runId}/${warmStartStep === null ? `iter-${iteration}` : `warm-start-${warmStartStep}`}`, sizeBytes: 1, sha256: 'x', warmStartStep });
    store.checkpoints.insert([row(run.id, 4)]);
    store.checkpoints.insert([row(other.id, 4)]);
    store.checkpoints.insert([row(run.id, 8)]);
    expect(store.checkpoints.listByRun(run.id).map((c) => c.warmStartStep)).toEqual([8]);
    // The warm start's own iter-0 (warm_start.save_checkpoint) takes iteration 0 from it.
    store.checkpoints.insert([row(run.id, null)]);
    expect(store.checkpoints.listByRun(run.id).map((c) => [c.iteration, c.warmStartStep])).toEqual([[0, null]]);
    // Another run's is its own.
    expect(store.checkpoints.latest(other.id)?.warmStartStep).toBe(4);
  });

  it('are kept by a resume that clears what the run recorded, and only they', () => {
    const run = store.runs.create({ name: 'cleared', config: {}, seed: 0, envTags: ['Bandit'], algorithm: 'grpo' });
    store.metrics.insert([-1, 0, 1].map((iteration) => ({ runId: run.id, name: 'warm_start/loss', iteration, value: 1, wallTime: 0 })));
    store.checkpoints.insert([{ runId: run.id, iteration: 0, path: 'w', sizeBytes: 1, sha256: 'x', warmStartStep: 3 }]);
    store.runs.truncateAfter(run.id, 'warm start');
    expect(store.metrics.series(run.id, 'warm_start/loss')).toEqual([]);
    expect(store.checkpoints.listByRun(run.id).map((c) => c.warmStartStep)).toEqual([3]);
  });
});
