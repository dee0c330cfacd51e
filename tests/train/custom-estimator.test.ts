// An advantage estimator registered from outside trainer-core, as docs/architecture.md's recipe
// describes: the config accepts its name, the trainer builds a critic exactly when it reads
// values, and the advantages it computes are the ones the update and the stored turns see.
import { afterAll, describe, expect, it } from 'vitest';
import { defineEstimator, type EstimatorSettings } from '../../trainer-core/algo/estimator';
import { estimatorNames, registerEstimator } from '../../trainer-core/algo/estimator-registry';
import { tempDir, tinyBanditConfig, trainInMemory } from './helpers';

const tmp = tempDir('custom-estimator');
afterAll(() => tmp.cleanup());

const seen: Array<{ rows: number; gamma: number; hadValues: boolean }> = [];

/** Every generated token gets advantage 0.25; returns are the critic's own values when it has them. */
const constantQuarter = defineEstimator({
  name: 'constant_quarter',
  description: 'a test estimator: advantage 0.25 on every generated token',
  reads: [],
  compute(batch, settings: EstimatorSettings) {
    seen.push({ rows: batch.rows, gamma: settings.gamma, hadValues: batch.values !== undefined });
    const advantages = batch.mask.map((m) => (m > 0 ? 0.25 : 0));
    return { advantages, returns: batch.values ? batch.values.slice() : advantages.slice() };
  },
});

/** The same, reading critic values: returns are the values plus the advantage. */
const criticQuarter = defineEstimator({
  name: 'critic_quarter',
  description: 'a test estimator with a critic',
  reads: ['values'],
  compute(batch) {
    seen.push({ rows: batch.rows, gamma: Number.NaN, hadValues: true });
    const advantages = batch.mask.map((m) => (m > 0 ? 0.25 : 0));
    return { advantages, returns: batch.values.map((v, i) => v + advantages[i]) };
  },
});

describe('an advantage estimator registered from a test file', () => {
  it('is refused by the config until it is registered', () => {
    expect(() => tinyBanditConfig(['algorithm.adv_estimator=constant_quarter'])).toThrow(/`algorithm.adv_estimator` must be one of gae \| grpo/);
    registerEstimator(constantQuarter);
    registerEstimator(criticQuarter);
    expect(estimatorNames().slice(-2)).toEqual(['constant_quarter', 'critic_quarter']);
    expect(() => registerEstimator({ ...constantQuarter })).toThrow(/already registered/);
  });

  it('trains a run: its advantages reach every trained turn, with the run config as its settings and no critic', async () => {
    seen.length = 0;
    const config = tinyBanditConfig(['algorithm.adv_estimator=constant_quarter', 'algorithm.gamma=0.7', 'trainer.total_training_steps=2', 'trainer.test_freq=0']);
    const { sink, result } = await trainInMemory(config, { checkpointDir: `${tmp.dir}/constant` });
    expect(result.status).toBe('completed');
    expect(seen).toEqual([
      { rows: 8, gamma: 0.7, hadValues: false },
      { rows: 8, gamma: 0.7, hadValues: false },
    ]);
    expect(sink.metrics.get(2)).toHaveProperty('actor/pg_loss');
    expect(sink.metrics.get(2)?.['critic/advantages/mean']).toBeCloseTo(0.25, 6);
    expect(Object.keys(sink.metrics.get(2) ?? {}).filter((k) => k.startsWith('critic/vf'))).toEqual([]);
    const trained = sink.episodes.filter((e) => e.split === 'train').flatMap((e) => e.turns.map((t) => t.advantageMean));
    expect(trained.length).toBe(16);
    expect(new Set(trained)).toEqual(new Set([0.25]));
  });

  it('gets a critic when it reads values', async () => {
    seen.length = 0;
    const config = tinyBanditConfig(['algorithm.adv_estimator=critic_quarter', 'trainer.total_training_steps=1', 'trainer.test_freq=0']);
    const { sink, result } = await trainInMemory(config, { checkpointDir: `${tmp.dir}/critic` });
    expect(result.status).toBe('completed');
    expect(seen).toHaveLength(1);
    expect(sink.metrics.get(1)).toHaveProperty('critic/vf_loss');
  });
});
