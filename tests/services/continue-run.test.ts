// Resuming a completed run for more iterations (issue 21, point 7): the run trains the extra
// iterations and keeps the new total in its stored config, so its plan reads "4 / 4", not "4 / 2".
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resumeFromCheckpoint, trainFromConfigFile } from '../../main/services/training';
import { openStore } from '../../main/store/db';
import { hashConfig } from '../../main/store/repositories/runs';
import { makeTempDir } from '../helpers/fixtures';
import { TINY_BANDIT_OVERRIDES } from '../helpers/tiny-bandit';

const BANDIT = resolve(import.meta.dirname, '../../configs/bandit.yaml');
const TINY = [...TINY_BANDIT_OVERRIDES, 'warm_start.steps=3', 'trainer.val_before_train=false', 'trainer.save_freq=1', 'trainer.test_freq=0'];

const tmp = makeTempDir('turnlab-continue-');
const store = openStore(tmp.dir, { create: true });
afterAll(() => {
  store.close();
  tmp.cleanup();
});

const totalOf = (config: unknown) => (config as { trainer: { total_training_steps: number } }).trainer.total_training_steps;

describe('continuing a completed run', () => {
  it('trains the extra iterations and stores the new total on the run', async () => {
    const { run } = await trainFromConfigFile(store, BANDIT, { overrides: [...TINY, 'trainer.total_training_steps=2'] });
    expect(run.status).toBe('completed');
    expect(totalOf(run.config)).toBe(2);

    // Nothing to train: refused, and the stored config stays as it was.
    await expect(resumeFromCheckpoint(store, String(run.id))).rejects.toThrow(/nothing to train/);
    expect(store.runs.get(run.id)!.config).toEqual(run.config);

    const { run: continued } = await resumeFromCheckpoint(store, String(run.id), { overrides: ['trainer.total_training_steps=4'] });
    expect(continued.id).toBe(run.id);
    expect(continued.status).toBe('completed');
    expect(store.metrics.series(run.id, 'actor/lr').map((p) => p.iteration)).toEqual([1, 2, 3, 4]);
    expect(store.checkpoints.latest(run.id)!.iteration).toBe(4);
    expect(totalOf(continued.config)).toBe(4);
    // Everything else in the config is what the run trained under before.
    const { trainer: before, ...restBefore } = run.config as Record<string, unknown> & { trainer: object };
    const { trainer: after, ...restAfter } = continued.config as Record<string, unknown> & { trainer: object };
    expect(restAfter).toEqual(restBefore);
    expect({ ...after, total_training_steps: 2 }).toEqual(before);
    // The hash follows the config it hashes.
    expect(continued.configHash).toBe(hashConfig(continued.config));
    expect(continued.configHash).not.toBe(run.configHash);
  });
});
