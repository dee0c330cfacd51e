// Resuming a completed run for more iterations (issue 21, point 7): the run trains the extra
// iterations and keeps the new total in its stored config, so its plan reads "4 / 4", not "4 / 2".
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
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
    // Another seed is what it would not go on with: a fork, advised with a total that trains, comes first.
    await expect(resumeFromCheckpoint(store, String(run.id), { overrides: [`trainer.seed=${run.seed + 1}`] })).rejects.toThrow(
      `was trained with \`trainer.seed\` ${run.seed}; to go on under seed ${run.seed + 1}, fork it (turnlab resume ${run.id} --fork --set trainer.seed=${run.seed + 1} --set trainer.total_training_steps=12), which keeps both`,
    );

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
    // The log keeps where it went on from and under which changes: the stored config is the newest only.
    const logged = store.logs.list(run.id).map((line) => line.line);
    expect(logged).toContain(`resuming from ckpt:${store.checkpoints.listByRun(run.id).find((c) => c.iteration === 2)!.id}, iteration 2; with trainer.total_training_steps=4`);
  });

  it('says which iterations an earlier checkpoint trains again, and keeps the seed and estimator the run started with', async () => {
    const { run } = await trainFromConfigFile(store, BANDIT, { overrides: [...TINY, 'trainer.total_training_steps=3', 'trainer.seed=3'] });
    const first = store.checkpoints.listByRun(run.id).find((c) => c.iteration === 1)!;
    await expect(resumeFromCheckpoint(store, `ckpt:${first.id}`, { overrides: ['trainer.seed=7'] })).rejects.toThrow(
      `run ${run.id} (${run.name}) was trained with \`trainer.seed\` 3; to go on under seed 7, fork it (turnlab resume ${run.id} --fork --set trainer.seed=7), which keeps both`,
    );
    expect(store.runs.summary(run.id)!.iterations).toBe(3);
    // So does its estimator: another would add or drop a critic mid-run under one stored config.
    await expect(resumeFromCheckpoint(store, `ckpt:${first.id}`, { overrides: ['algorithm.adv_estimator=gae'] })).rejects.toThrow(
      `run ${run.id} (${run.name}) was trained with grpo; to go on with ppo (gae), fork it (turnlab resume ${run.id} --fork --set algorithm.adv_estimator=gae), which keeps both`,
    );
    expect(store.runs.summary(run.id)!.iterations).toBe(3);
    await resumeFromCheckpoint(store, `ckpt:${first.id}`);
    expect(store.logs.list(run.id).map((line) => line.line)).toContain(`resuming from ckpt:${first.id}, iteration 1; iterations 2-3 recorded after it are trained again`);
    // An override the checkpoint cannot take is the fault, not the checkpoint: no advice to go back one (it would delete iterations for nothing).
    const misfit = await resumeFromCheckpoint(store, String(run.id), { overrides: ['model.n_layer=3', 'trainer.total_training_steps=5'] }).catch((error: Error) => error);
    expect((misfit as Error).message).toMatch(/model\.n_layer: checkpoint 1, config 3/);
    expect((misfit as Error).message).not.toMatch(/may be sound|--discard-later/);
    const { run: fork } = await resumeFromCheckpoint(store, String(run.id), { fork: true, overrides: ['trainer.seed=7', 'trainer.total_training_steps=4'] });
    expect(fork.seed).toBe(7);
    expect(store.logs.list(fork.id).map((line) => line.line)).toContainEqual(expect.stringMatching(new RegExp(`^forked from run ${run.id} \\(${run.name}\\) at ckpt:\\d+, iteration 3; with trainer.seed=7 trainer.total_training_steps=4$`)));
  });

  it('names who trains a run still in its warm start, instead of "train it again"', async () => {
    const run = store.runs.create({ name: 'warming', config: {}, seed: 0, envTags: ['Bandit'], algorithm: 'grpo', tags: [] });
    // Another live process owns it, as a trainer in its warm start does.
    const owner = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    store.runs.setTrainerProcess(run.id, owner.pid!, hostname());
    try {
      await expect(resumeFromCheckpoint(store, String(run.id))).rejects.toThrow(`cannot resume run ${run.id} (warming): process ${owner.pid} on host ${hostname()} is training it`);
      // Its fork has nothing to fork from: that one is still told so.
      await expect(resumeFromCheckpoint(store, String(run.id), { fork: true })).rejects.toThrow(/saved no checkpoint/);
    } finally {
      owner.kill('SIGKILL');
    }
  });
});
