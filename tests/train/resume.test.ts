import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeSafetensors, encodeSafetensors } from '../../trainer-core/model/safetensors';
import { CheckpointError, readCheckpointFiles, writeCheckpointFiles } from '../../trainer-core/train/checkpoint-files';
import { loadRunConfig } from '../../trainer-core/config';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, tinyBanditConfig, trainInMemory, withoutTimings } from './helpers';

const tmp = tempDir('resume');
afterAll(() => tmp.cleanup());

describe('stopping and resuming a run', () => {
  const config = tinyBanditConfig([
    'trainer.total_training_steps=4',
    'trainer.test_freq=2',
    'trainer.save_freq=0',
    'trainer.val_before_train=false',
    'algorithm.adv_estimator=gae',
    'algorithm.use_kl_in_reward=true',
    'algorithm.kl_ctrl.type=adaptive',
    'actor_rollout_ref.actor.ppo_epochs=2',
    'actor_rollout_ref.actor.optim.lr_scheduler_type=cosine',
    'critic.optim.lr_warmup_steps_ratio=0.5',
  ]);

  it('gives the same metrics as an uninterrupted run, without leaking tensors', async () => {
    const straight = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'straight') });
    expect(straight.result.status).toBe('completed');

    const tensorsAfter: number[] = [];
    const first = await trainInMemory(config, {
      checkpointDir: join(tmp.dir, 'split'),
      stopAfter: 2,
    });
    expect(first.result.status).toBe('stopped');
    expect(first.result.lastIteration).toBe(2);
    expect(first.sink.checkpoints.map((c) => c.iteration)).toEqual([2]);

    const resumed = await trainInMemory(config, {
      checkpointDir: join(tmp.dir, 'split'),
      resumeFrom: first.sink.checkpoints[0].path,
      shouldStop: () => {
        tensorsAfter.push(tf.memory().numTensors);
        return false;
      },
    });
    expect(resumed.result.status).toBe('completed');
    expect([...resumed.sink.metrics.keys()]).toEqual([3, 4]);

    for (const iteration of [1, 2]) {
      expect(withoutTimings(first.sink.metrics.get(iteration)!)).toEqual(withoutTimings(straight.sink.metrics.get(iteration)!));
    }
    for (const iteration of [3, 4]) {
      expect(withoutTimings(resumed.sink.metrics.get(iteration)!)).toEqual(withoutTimings(straight.sink.metrics.get(iteration)!));
    }
    // The critic, the reference and the adaptive KL controller all took part.
    expect(straight.sink.metrics.get(4)).toHaveProperty('critic/vf_loss');
    expect(straight.sink.metrics.get(4)).toHaveProperty('actor/reward_kl_penalty_coeff');
    // The learning rates follow their schedules from the iteration, so a resumed run picks them up.
    const lr = (key: string) => [1, 2, 3, 4].map((i) => straight.sink.metrics.get(i)![key]);
    const actorLr = config.actor_rollout_ref.actor.optim.lr;
    const criticLr = config.critic.optim.lr;
    expect(lr('actor/lr')[0]).toBeCloseTo(actorLr, 12);
    expect(lr('actor/lr')[2]).toBeCloseTo(actorLr / 2, 12); // step 2 of 4: half way down the cosine
    expect(lr('critic/lr')).toEqual([0, criticLr / 2, criticLr, criticLr]); // 2 warmup steps from 0
    // Iterations 3 and 4 (one with validation) end with the same number of live tensors.
    expect(tensorsAfter[1]).toBe(tensorsAfter[0]);
    // The running totals count the training episodes the sink stored, and the actions they executed, across the resume.
    const train = straight.sink.episodes.filter((e) => e.split === 'train');
    const perIteration = config.es_manager.train.env_groups * config.es_manager.train.group_size;
    for (const iteration of [1, 2, 3, 4]) {
      const upTo = train.filter((e) => e.iteration <= iteration);
      expect(upTo).toHaveLength(iteration * perIteration);
      const metrics = (iteration <= 2 ? first : resumed).sink.metrics.get(iteration)!;
      expect(metrics['perf/total_episodes']).toBe(upTo.length);
      expect(metrics['perf/total_env_steps']).toBe(upTo.reduce((sum, e) => sum + e.numActions, 0));
    }
  });

  it('counts the environment steps a policy that answers well-formed actions takes', async () => {
    const lake = loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [...TINY_LAKE_OVERRIDES, 'trainer.total_training_steps=2', 'trainer.test_freq=0', 'trainer.save_freq=0']);
    const run = await trainInMemory(lake, { checkpointDir: join(tmp.dir, 'lake-counts') });
    const train = run.sink.episodes.filter((e) => e.split === 'train');
    const steps = train.reduce((sum, e) => sum + e.numActions, 0);
    // FrozenLake executes one action a turn; the warm start taught the format, so most turns move.
    expect(steps).toBeGreaterThan(train.length);
    expect(steps).toBeLessThanOrEqual(train.reduce((sum, e) => sum + e.numTurns, 0));
    expect(run.sink.metrics.get(2)!['perf/total_env_steps']).toBe(steps);
    expect(run.sink.metrics.get(2)!['perf/total_episodes']).toBe(train.length);
  });

  it('resumes a checkpoint written before the episode counts, without them', async () => {
    const short = tinyBanditConfig(['trainer.total_training_steps=1', 'trainer.test_freq=0']);
    const run = await trainInMemory(short, { checkpointDir: join(tmp.dir, 'old-state') });
    const files = readCheckpointFiles(run.sink.checkpoints[0].path);
    const { totalEpisodes: _episodes, totalEnvSteps: _steps, ...older } = JSON.parse(Buffer.from(files['state.json']).toString('utf8')) as Record<string, unknown>;
    expect(_episodes).toBe(short.es_manager.train.env_groups * short.es_manager.train.group_size);
    const { 'manifest.json': _manifest, ...rest } = files;
    const dir = join(tmp.dir, 'old-state-copy', 'iter-1');
    writeCheckpointFiles(dir, { ...rest, 'state.json': JSON.stringify(older) });
    const resumed = await trainInMemory(tinyBanditConfig(['trainer.total_training_steps=2', 'trainer.test_freq=0']), { checkpointDir: join(tmp.dir, 'old-state-2'), resumeFrom: dir });
    expect(resumed.result.status).toBe('completed');
    const metrics = resumed.sink.metrics.get(2)!;
    expect(metrics).toHaveProperty('perf/total_generated_tokens');
    expect(metrics).not.toHaveProperty('perf/total_episodes');
    expect(metrics).not.toHaveProperty('perf/total_env_steps');
  });

  it('refuses a truncated, altered or mismatched checkpoint and says which', async () => {
    const run = await trainInMemory(tinyBanditConfig(['trainer.total_training_steps=1', 'trainer.test_freq=0']), {
      checkpointDir: join(tmp.dir, 'refuse'),
    });
    const dir = run.sink.checkpoints[0].path;
    expect(readdirSync(dir)).toContain('policy.safetensors');

    const mismatched = tinyBanditConfig(['model.d_model=48', 'trainer.total_training_steps=2']);
    await expect(trainInMemory(mismatched, { checkpointDir: join(tmp.dir, 'x'), resumeFrom: dir })).rejects.toThrow(
      /does not match the model in the config \(model\.d_model: checkpoint 32, config 48\); a resumed or forked run keeps its checkpoint's model: leave these keys as the run had them, or train a new run/,
    );

    const policy = join(dir, 'policy.safetensors');
    const bytes = readFileSync(policy);
    const altered = Buffer.from(bytes);
    altered[altered.length - 1] ^= 0xff;
    writeFileSync(policy, altered);
    await expect(trainInMemory(mismatched, { checkpointDir: join(tmp.dir, 'y'), resumeFrom: dir })).rejects.toThrow(
      /policy\.safetensors is altered \(same size, but its sha256 differs/,
    );

    writeFileSync(policy, bytes.subarray(0, bytes.length - 100));
    const error = await trainInMemory(mismatched, { checkpointDir: join(tmp.dir, 'z'), resumeFrom: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect(String(error)).toMatch(/policy\.safetensors is truncated/);

    // Longer than recorded is a changed file, not a truncated one.
    writeFileSync(policy, Buffer.concat([bytes, Buffer.from('x')]));
    await expect(trainInMemory(mismatched, { checkpointDir: join(tmp.dir, 'w'), resumeFrom: dir })).rejects.toThrow(
      /policy\.safetensors is altered \(\d+ bytes, the manifest says \d+\)/,
    );
  });

  it('refuses a checkpoint whose Adam moments miss a parameter or have another shape, naming the file and the field', async () => {
    const run = await trainInMemory(tinyBanditConfig(['trainer.total_training_steps=1', 'trainer.test_freq=0']), {
      checkpointDir: join(tmp.dir, 'moments'),
    });
    const files = readCheckpointFiles(run.sink.checkpoints[0].path);
    const optimizer = decodeSafetensors(files['optimizer.actor.safetensors']);
    const name = 'layers.0.attn.qkv.weight';
    expect(optimizer.tensors).toHaveProperty(`${name}.m`);
    // A well-formed checkpoint (its manifest rewritten) whose moments no longer fit the model.
    const rewritten = (tensors: typeof optimizer.tensors, folder: string): string => {
      const dir = join(tmp.dir, folder, 'iter-1');
      const { 'manifest.json': _manifest, ...rest } = files;
      writeCheckpointFiles(dir, { ...rest, 'optimizer.actor.safetensors': encodeSafetensors(tensors, optimizer.metadata) });
      return dir;
    };
    const { [`${name}.v`]: _dropped, ...missing } = optimizer.tensors;
    const resume = (dir: string) => trainInMemory(tinyBanditConfig(['trainer.total_training_steps=2']), { checkpointDir: join(tmp.dir, 'm2'), resumeFrom: dir });
    await expect(resume(rewritten(missing, 'missing-moment'))).rejects.toThrow(`optimizer.actor.safetensors lacks \`${name}.v\``);
    const entry = optimizer.tensors[`${name}.m`];
    const reshaped = { ...optimizer.tensors, [`${name}.m`]: { ...entry, shape: [entry.shape[1], entry.shape[0]] } };
    await expect(resume(rewritten(reshaped, 'reshaped-moment'))).rejects.toThrow(
      `optimizer.actor.safetensors field \`${name}.m\` has shape [${entry.shape[1]},${entry.shape[0]}], the model has [${entry.shape.join(',')}]`,
    );
  });
});

describe('model.path', () => {
  it("starts a new run from another run's policy and tokenizer", async () => {
    const source = await trainInMemory(tinyBanditConfig(['trainer.total_training_steps=1', 'trainer.test_freq=0']), {
      checkpointDir: join(tmp.dir, 'source'),
    });
    const path = source.sink.checkpoints[0].path;
    const config = tinyBanditConfig(['trainer.total_training_steps=1', 'trainer.test_freq=1', 'warm_start.steps=0', `model.path=${path}`]);
    const started = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'from-path') });
    expect(started.result.status).toBe('completed');
    const bad = tinyBanditConfig(['trainer.total_training_steps=1', 'model.n_layer=2', `model.path=${path}`]);
    await expect(trainInMemory(bad, { checkpointDir: join(tmp.dir, 'bad') })).rejects.toThrow(/model\.n_layer: checkpoint 1, config 2/);
  });

  it('keeps the warm-started policy as iter-0 with warm_start.save_checkpoint, and a run started from it validates as it did', async () => {
    const plain = await trainInMemory(tinyBanditConfig(['trainer.total_training_steps=1', 'trainer.test_freq=1']), { checkpointDir: join(tmp.dir, 'ws-plain') });
    expect(plain.sink.checkpoints.map((c) => c.iteration)).toEqual([1]);

    const kept = await trainInMemory(tinyBanditConfig(['trainer.total_training_steps=0', 'trainer.test_freq=1', 'warm_start.save_checkpoint=true']), {
      checkpointDir: join(tmp.dir, 'ws-kept'),
    });
    expect(kept.result.status).toBe('completed');
    expect(kept.sink.checkpoints.map((c) => c.iteration)).toEqual([0]);
    const warmVal = kept.sink.metrics.get(0)!['val/Bandit/success'];
    expect(kept.sink.checkpoints[0].metrics['val/Bandit/success']).toBe(warmVal);
    expect(plain.sink.metrics.get(0)!['val/Bandit/success']).toBe(warmVal);

    // keep_last_n prunes the others, never the checkpoint asked for by name.
    const pruned = await trainInMemory(
      tinyBanditConfig(['trainer.total_training_steps=3', 'trainer.test_freq=0', 'trainer.save_freq=1', 'trainer.keep_last_n=1', 'warm_start.save_checkpoint=true']),
      { checkpointDir: join(tmp.dir, 'ws-pruned') },
    );
    expect(pruned.sink.checkpoints.map((c) => c.iteration)).toEqual([0, 1, 2, 3]);
    expect(readdirSync(join(tmp.dir, 'ws-pruned')).sort()).toEqual(['iter-0', 'iter-3']);

    const fromIt = tinyBanditConfig(['trainer.total_training_steps=1', 'trainer.test_freq=1', 'warm_start.steps=0', `model.path=${kept.sink.checkpoints[0].path}`]);
    const started = await trainInMemory(fromIt, { checkpointDir: join(tmp.dir, 'ws-from') });
    expect(withoutTimings(started.sink.metrics.get(0)!)).toEqual(withoutTimings(plain.sink.metrics.get(0)!));
    expect(withoutTimings(started.sink.metrics.get(1)!)).toEqual(withoutTimings(plain.sink.metrics.get(1)!));
  });

  it('forks a run without a critic into one with a critic (GRPO to GAE), the critic starting from the policy', async () => {
    const grpo = await trainInMemory(tinyBanditConfig(['trainer.total_training_steps=1', 'trainer.test_freq=0', 'algorithm.adv_estimator=grpo']), {
      checkpointDir: join(tmp.dir, 'grpo'),
    });
    const fork = tinyBanditConfig(['trainer.total_training_steps=2', 'trainer.test_freq=0', 'algorithm.adv_estimator=gae', 'critic.optim.lr=1e-3']);
    const forked = await trainInMemory(fork, { checkpointDir: join(tmp.dir, 'gae'), resumeFrom: grpo.sink.checkpoints[0].path });
    expect(forked.result.status).toBe('completed');
    expect(forked.sink.metrics.get(2)).toHaveProperty('critic/vf_loss');
    expect(forked.sink.metrics.get(2)!['critic/vf_loss']).toBeGreaterThan(0);
  });
});
