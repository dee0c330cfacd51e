// A resumed run keeps the time it first started: the trainer's "run started" sets started_at only
// on a run that never started (a new run or a fork). The warm start's loss curve is stored as a
// metric over the iterations before the first (its last step at iteration 0).
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { EXPERT_ITERATION_PREFIX, StoreSink, WARM_START_LOSS_METRIC } from '../../main/trainer-host/store-sink';
import { makeTempDir, type TempDir } from '../helpers/fixtures';

let tmp: TempDir | undefined;

afterEach(() => tmp?.cleanup());

const START = { backend: 'wasm', device: 'cpu', backendNotes: [], parameterCount: 10, startIteration: 1, totalIterations: 4 };

describe('run start time', () => {
  it('is set when a run first starts and kept when it is resumed', async () => {
    tmp = makeTempDir();
    const store = openStore(tmp.dir, { create: true });
    try {
      const run = store.runs.create({ name: 'r', config: {}, seed: 1, envTags: ['Bandit'], algorithm: 'grpo' });
      const before = Date.now();
      await new StoreSink(store, run.id).runStarted(START);
      const first = store.runs.get(run.id)!.startedAt!;
      expect(first).toBeGreaterThanOrEqual(before);

      store.runs.update(run.id, { status: 'stopped' });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await new StoreSink(store, run.id).runStarted({ ...START, startIteration: 3 });
      expect(store.runs.get(run.id)).toMatchObject({ status: 'running', startedAt: first });
    } finally {
      store.close();
    }
  });

  it('stores the warm start loss curve before iteration 1', async () => {
    tmp = makeTempDir();
    const store = openStore(tmp.dir, { create: true });
    try {
      const run = store.runs.create({ name: 'r', config: {}, seed: 1, envTags: ['Bandit'], algorithm: 'grpo' });
      await new StoreSink(store, run.id).warmStartLoss([5.3, 4.1, Number.NaN, 2.3]);
      const series = store.metrics.series(run.id, WARM_START_LOSS_METRIC);
      expect(series.map((p) => [p.iteration, p.value])).toEqual([[-3, 5.3], [-2, 4.1], [-1, null], [0, 2.3]]);
      // Not counted as training iterations.
      expect(store.runs.summary(run.id)?.iterations).toBe(0);
    } finally {
      store.close();
    }
  });

  it("writes the backend and the warm start's progress on the run's row as it goes, where the Runs table reads it too", async () => {
    tmp = makeTempDir();
    const store = openStore(tmp.dir, { create: true });
    try {
      const run = store.runs.create({ name: 'r', config: { warm_start: { mode: 'expert', steps: 2500 } }, seed: 1, envTags: ['SimpleSokoban'], algorithm: 'grpo' });
      expect(store.runs.get(run.id)?.warmStartProgress).toBeNull();
      const sink = new StoreSink(store, run.id);
      await sink.backendSelected({ backend: 'wasm', device: 'WebAssembly SIMD, 1 thread' });
      const before = Date.now();
      await sink.warmStartProgress(0, 2500, null, 'warm start');
      const begun = store.runs.get(run.id)!.warmStartProgress!;
      expect(begun).toMatchObject({ phase: 'warm start', step: 0, steps: 2500, loss: null });
      expect(begun.startedAt).toBeGreaterThanOrEqual(before);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await sink.warmStartProgress(25, 2500, 0.5, 'warm start');
      const later = store.runs.get(run.id)!.warmStartProgress!;
      expect(later).toMatchObject({ step: 25, steps: 2500, loss: 0.5, startedAt: begun.startedAt });
      expect(later.updatedAt).toBeGreaterThan(begun.startedAt);
      await sink.warmStartProgress(50, 2500, Number.NaN, 'warm start');
      expect(store.runs.get(run.id)?.warmStartProgress).toMatchObject({ step: 50, loss: null });
      // Nothing else of the run changes: it is still queued, with no iterations.
      expect(store.runs.summary(run.id)).toMatchObject({ status: 'queued', iterations: null, backend: 'wasm', device: 'WebAssembly SIMD, 1 thread', startedAt: null });
      expect(store.runs.page({}).rows.find((r) => r.id === run.id)?.warmStartProgress).toMatchObject({ step: 50, steps: 2500 });
      // Expert iteration after it: its round 0 starts a clock of its own.
      await new Promise((resolve) => setTimeout(resolve, 5));
      await sink.warmStartProgress(0, 12, null, 'expert iteration');
      const rounds = store.runs.get(run.id)!.warmStartProgress!;
      expect(rounds).toMatchObject({ phase: 'expert iteration', step: 0, steps: 12, loss: null });
      expect(rounds.startedAt).toBeGreaterThan(begun.startedAt);
    } finally {
      store.close();
    }
  });

  it('stores the expert iteration rounds before iteration 1, the last at iteration 0', async () => {
    tmp = makeTempDir();
    const store = openStore(tmp.dir, { create: true });
    try {
      const run = store.runs.create({ name: 'r', config: {}, seed: 1, envTags: ['SimpleSokoban'], algorithm: 'grpo' });
      const sink = new StoreSink(store, run.id);
      await sink.expertIteration([
        { round: 1, rounds: 2, played: 64, solved: 0, pool: 0, loss: null },
        { round: 2, rounds: 2, played: 64, solved: 16, pool: 16, loss: 0.5 },
      ]);
      const series = (name: string) => store.metrics.series(run.id, `${EXPERT_ITERATION_PREFIX}${name}`).map((p) => [p.iteration, p.value]);
      expect(series('success')).toEqual([[-1, 0], [0, 0.25]]);
      expect(series('pool_episodes')).toEqual([[-1, 0], [0, 16]]);
      expect(series('loss')).toEqual([[-1, null], [0, 0.5]]);
      expect(store.runs.summary(run.id)?.iterations).toBe(0);
    } finally {
      store.close();
    }
  });
});
