import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, trainInMemory } from './helpers';

const tmp = tempDir('gigpo');
afterAll(() => tmp.cleanup());

describe('adv_estimator gigpo in training', () => {
  it('gives the turns of a multi-turn episode their own advantages from the states they were played in', async () => {
    const config = loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [
      ...TINY_LAKE_OVERRIDES,
      'es_manager.train.group_size=4',
      'trainer.total_training_steps=2',
      'trainer.test_freq=0',
      'algorithm.adv_estimator=gigpo',
      'algorithm.gamma=0.9',
    ]);
    const { sink, result } = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'run') });
    expect(result.status).toBe('completed');
    expect(sink.metrics.get(2)).toHaveProperty('actor/pg_loss');
    // GRPO gives every turn of an episode one advantage; GiGPO's step term makes them differ
    // wherever an episode met a state its group mates met too.
    const turnAdvantages = sink.episodes
      .filter((e) => e.split === 'train' && e.turns.length > 1)
      .map((e) => e.turns.map((t) => t.advantageMean ?? 0));
    expect(turnAdvantages.length).toBeGreaterThan(0);
    expect(turnAdvantages.some((a) => a.some((x) => Math.abs(x - a[0]) > 1e-6))).toBe(true);
  });
});
