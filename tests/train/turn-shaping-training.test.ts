import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { GrpoInput } from '../../trainer-core/algo/grpo';
import { loadRunConfig } from '../../trainer-core/config';
import { frozenLakeSpec } from '../../trainer-core/envs/frozen-lake';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, trainInMemory } from './helpers';

// The real computeGrpo, watched: the test reads the token rewards the trainer hands it.
const inputs: GrpoInput[] = [];
vi.mock('../../trainer-core/algo/grpo', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../trainer-core/algo/grpo')>();
  return {
    ...real,
    computeGrpo: (input: GrpoInput) => {
      inputs.push(input);
      return real.computeGrpo(input);
    },
  };
});

const tmp = tempDir('turn-shaping');
afterAll(() => tmp.cleanup());

describe('algorithm.turn_shaping in training', () => {
  it("adds to each train episode's reward coef x its start's solver distance (absorbing end, gamma 1)", async () => {
    const config = loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [
      ...TINY_LAKE_OVERRIDES,
      'trainer.total_training_steps=1',
      'trainer.test_freq=0',
      'algorithm.turn_shaping={coef: 0.5, gamma: 1}',
    ]);
    const { sink, result } = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'run') });
    expect(result.status).toBe('completed');
    expect(inputs).toHaveLength(1);
    const [input] = inputs;
    const trained = sink.episodes.filter((e) => e.iteration === 1 && e.split === 'train' && !e.filteredOut);
    expect(input.rows).toBe(trained.length);
    // The distance from a fresh board of the same seed, by the env's own solver.
    const env = frozenLakeSpec.create(frozenLakeSpec.optionsSchema.parse(config.custom_envs.FrozenLakeNonSlip.env_config));
    const bonuses = trained.map((episode, row) => {
      env.reset(episode.seed);
      const distance = Math.min(env.solve?.()?.length ?? 11, 11);
      let sum = 0;
      for (let c = 0; c < input.cols; c++) sum += input.rewards[row * input.cols + c];
      expect(sum).toBeCloseTo(episode.totalReward + 0.5 * distance, 5);
      return 0.5 * distance;
    });
    // The bonus has a metric of its own beside the score that includes it.
    const metrics = sink.metrics.get(1)!;
    expect(metrics['critic/shaping/mean']).toBeCloseTo(bonuses.reduce((a, b) => a + b, 0) / bonuses.length, 5);
    expect(metrics['critic/shaping/max']).toBeCloseTo(Math.max(...bonuses), 5);
  }, 120_000);
});
