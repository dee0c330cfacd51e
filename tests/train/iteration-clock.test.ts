// verl's per-phase timings and memory figures of each iteration (trainer-core/train/iteration-clock.ts):
// each phase's seconds add up across its calls, the step covers them all, a tensor held at the
// end of a phase counts toward the peak after it is freed, and a run with a critic and a KL
// reference logs every phase it ran.
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, describe, expect, it } from 'vitest';
import { startIterationClock } from '../../trainer-core/train/iteration-clock';
import { tempDir, tinyBanditConfig, trainInMemory } from './helpers';

const tmp = tempDir('clock');
afterAll(() => tmp.cleanup());

describe('the iteration clock', () => {
  it('adds up each phase, times the step, and keeps the most tensor memory held after a phase', async () => {
    let t = 1000;
    const clock = startIterationClock(() => t);
    const before = tf.memory().numBytes;
    await clock.time('ref', () => {
      t += 250;
    });
    const held = await clock.time('update_actor', () => {
      t += 1500;
      return tf.zeros([1024, 1024]);
    });
    held.dispose();
    await clock.time('ref', () => {
      t += 250;
    });
    t += 100;
    const metrics = clock.metrics();
    expect(metrics['timing_s/ref']).toBeCloseTo(0.5, 9);
    expect(metrics['timing_s/update_actor']).toBeCloseTo(1.5, 9);
    expect(metrics['timing_s/step']).toBeCloseTo(2.1, 9);
    expect(metrics['perf/max_memory_allocated_gb']).toBeGreaterThanOrEqual((before + 4 * 1024 * 1024) / 1024 ** 3);
    expect(tf.memory().numBytes).toBe(before);
    expect(metrics['perf/cpu_memory_used_gb']).toBeCloseTo(process.memoryUsage().rss / 1024 ** 3, 1);
  });

  it('logs every phase a run with a critic, a KL reference and validation ran', async () => {
    const config = tinyBanditConfig(['trainer.total_training_steps=2', 'trainer.test_freq=2', 'trainer.val_before_train=false', 'algorithm.adv_estimator=gae', 'actor_rollout_ref.actor.use_kl_loss=true']);
    const { sink } = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'gae') });
    const [first, second] = [sink.metrics.get(1)!, sink.metrics.get(2)!];
    for (const name of ['ref', 'values', 'adv', 'update_critic', 'update_actor']) expect(first[`timing_s/${name}`], name).toBeGreaterThan(0);
    expect(first).not.toHaveProperty('timing_s/testing');
    expect(second['timing_s/testing']).toBeGreaterThan(0);
    const phases = ['rollout', 'ref', 'values', 'adv', 'update_critic', 'update_actor', 'testing'].reduce((sum, name) => sum + (second[`timing_s/${name}`] ?? 0), 0);
    expect(second['timing_s/step']).toBeGreaterThanOrEqual(phases - 1e-6);
    expect(second['perf/max_memory_allocated_gb']).toBeGreaterThan(0);
    expect(second['perf/cpu_memory_used_gb']).toBeGreaterThan(0.01);
  });
});
