// Forking and resuming runs through the service the CLI and the app use, with a real store and
// real (tiny) training: overrides reach the keys that refer to the overridden one, and a fork
// validates at its starting point.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../main/store/db';
import { resumeFromCheckpoint, trainFromConfigFile } from '../../main/services/training';
import { checkpointRunConfig } from '../../main/services/resume-checks';
import type { RunConfig } from '../../trainer-core/config';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { BANDIT_CONFIG, TINY_BANDIT_OVERRIDES, tinyBanditConfig, trainInMemory } from '../train/helpers';

let temp: TempDir;
let store: Store;
let parentId: number;

beforeAll(async () => {
  temp = makeTempDir('turnlab-fork-');
  store = openStore(temp.dir, { create: true });
  // GAE, so there is a critic whose settings copy the actor's through ${}.
  const parent = await trainFromConfigFile(store, BANDIT_CONFIG, {
    overrides: [...TINY_BANDIT_OVERRIDES, 'algorithm.adv_estimator=gae', 'trainer.total_training_steps=1', 'trainer.test_freq=1', 'trainer.val_before_train=false'],
    name: 'parent',
  });
  expect(parent.result.status).toBe('completed');
  parentId = parent.run.id;
}, 120_000);

afterAll(() => {
  store?.close();
  temp?.cleanup();
});

describe('fork and resume overrides', () => {
  it('re-resolve the keys that refer to the overridden one (the critic copies the actor)', async () => {
    const fork = await resumeFromCheckpoint(store, 'parent', {
      fork: true,
      name: 'child',
      overrides: ['actor_rollout_ref.actor.ppo_epochs=2', 'ppo_mini_batch_size=2', 'trainer.total_training_steps=2', 'trainer.val_before_train=false'],
    });
    expect(fork.result.status).toBe('completed');
    const cfg = fork.run.config as RunConfig;
    expect(cfg.critic.ppo_epochs).toBe(2);
    expect(cfg.critic.ppo_mini_batch_size).toBe(2);
    expect(cfg.actor_rollout_ref.actor.ppo_mini_batch_size).toBe(2);
    // The child's checkpoint keeps the source too, so a fork of the fork still re-resolves.
    const grandchild = checkpointRunConfig(join(temp.dir, store.checkpoints.latest(fork.run.id)!.path), ['actor_rollout_ref.actor.ppo_epochs=3']);
    expect(grandchild.cfg.critic.ppo_epochs).toBe(3);
    expect(grandchild.cfg.critic.ppo_mini_batch_size).toBe(2);
  }, 120_000);

  it('fall back to the resolved config for a checkpoint without its source', async () => {
    const old = await trainInMemory(tinyBanditConfig(['algorithm.adv_estimator=gae', 'trainer.total_training_steps=1', 'trainer.test_freq=0']), {
      checkpointDir: join(temp.dir, 'old'),
    });
    const { cfg } = checkpointRunConfig(old.sink.checkpoints[0].path, ['actor_rollout_ref.actor.ppo_epochs=2']);
    expect(cfg.actor_rollout_ref.actor.ppo_epochs).toBe(2);
    expect(cfg.critic.ppo_epochs).toBe(1);
  }, 120_000);
});

describe('a fork with trainer.val_before_train', () => {
  it("validates at its starting point, the parent's iteration", async () => {
    const fork = await resumeFromCheckpoint(store, 'parent', {
      fork: true,
      name: 'validated-child',
      overrides: ['trainer.total_training_steps=2', 'trainer.val_before_train=true', 'trainer.test_freq=5'],
    });
    expect(fork.result.status).toBe('completed');
    const name = store.metrics.names(fork.run.id).find((n) => n.startsWith('val/') && n.endsWith('/success'));
    expect(name).toBeDefined();
    // Iteration 1 is the parent's; 2 is the last iteration, which always validates.
    expect(store.metrics.series(fork.run.id, name!).map((p) => p.iteration)).toEqual([1, 2]);
    // A plain resume of the same run has its row at its starting point already: no second one.
    const resumed = await resumeFromCheckpoint(store, `${parentId}`, { overrides: ['trainer.total_training_steps=2', 'trainer.val_before_train=true'] });
    expect(resumed.result.status).toBe('completed');
    expect(store.metrics.series(parentId, name!).map((p) => p.iteration)).toEqual([1, 2]);
  }, 120_000);
});
