import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { fitRunTokenizer, modelRoles } from '../../trainer-core/train/models';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, tinyBanditConfig, trainInMemory } from './helpers';

const tmp = tempDir('curriculum');
afterAll(() => tmp.cleanup());

describe('es_manager.train.stages in training', () => {
  // The non-slippery lake from the corner, then from iteration 2 the same lake from any square.
  const config = loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [
    ...TINY_LAKE_OVERRIDES,
    'trainer.total_training_steps=2',
    'trainer.test_freq=0',
    'trainer.save_freq=0',
    'es_manager.train.stages=[{from_iteration: 2, env_configs: {tags: [FrozenLakeAnyStart], n_groups: [2]}}]',
  ]);
  const trainEpisodes = (sink: { episodes: ReadonlyArray<{ iteration: number; split: string; envTag: string; seed: number }> }, iteration: number) =>
    sink.episodes.filter((e) => e.split === 'train' && e.iteration === iteration);

  it('plays each stage from its iteration on, the seed schedule carried on, and a resumed run plays the same', async () => {
    const lines: string[] = [];
    const straight = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'straight'), log: (line) => lines.push(line) });
    expect(straight.result.status).toBe('completed');
    expect(new Set(trainEpisodes(straight.sink, 1).map((e) => e.envTag))).toEqual(new Set(['FrozenLakeNonSlip']));
    for (const iteration of [2]) expect(new Set(trainEpisodes(straight.sink, iteration).map((e) => e.envTag))).toEqual(new Set(['FrozenLakeAnyStart']));
    expect(lines.filter((l) => l.startsWith('curriculum:'))).toEqual(['curriculum: at iteration 2 the train rollouts play stage 1 (FrozenLakeAnyStart x 2)']);
    // No start seed repeats across the stages.
    const seeds = [1, 2].flatMap((i) => [...new Set(trainEpisodes(straight.sink, i).map((e) => e.seed))]);
    expect(new Set(seeds).size).toBe(seeds.length);

    // Stopped in stage 0 and resumed: the resumed run enters stage 1 and plays the uninterrupted run's boards.
    const first = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'split'), stopAfter: 1 });
    expect(first.result.status).toBe('stopped');
    const resumed = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'split'), resumeFrom: first.sink.checkpoints[0].path });
    for (const iteration of [2]) {
      const played = (sink: typeof straight.sink) => trainEpisodes(sink, iteration).map((e) => [e.envTag, e.seed]);
      expect(played(resumed.sink)).toEqual(played(straight.sink));
    }
  }, 120_000);

  it("scores the reference only in the stages whose KL loss weighs it, and keeps one for a later stage's", async () => {
    const stage = (from: number, kl: number) => `{from_iteration: ${from}, env_configs: {tags: [Bandit], n_groups: [2]}, kl_loss_coef: ${kl}}`;
    const config = tinyBanditConfig([
      'trainer.total_training_steps=3',
      'trainer.test_freq=0',
      'trainer.save_freq=0',
      'actor_rollout_ref.actor.use_kl_loss=true',
      'actor_rollout_ref.actor.kl_loss_coef=0',
      `es_manager.train.stages=[${stage(2, 0.05)}, ${stage(3, 0)}]`,
    ]);
    // Stage 0 alone weighs no KL term; the run still needs a reference, for stage 1.
    expect(modelRoles({ ...config, es_manager: { ...config.es_manager, train: { ...config.es_manager.train, stages: [] } } }).reference).toBe(false);
    expect(modelRoles(config).reference).toBe(true);
    const { sink, result } = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'kl-stages') });
    expect(result.status).toBe('completed');
    const klLoss = [1, 2, 3].map((i) => sink.metrics.get(i)?.['actor/kl_loss']);
    expect(klLoss[0]).toBeUndefined();
    expect(klLoss[1]).toBeGreaterThanOrEqual(0);
    expect(klLoss[2]).toBeUndefined();
    // verl's actor/kl_coef is the KL loss's weight, each stage's own (not the in-reward controller's).
    expect([1, 2, 3].map((i) => sink.metrics.get(i)?.['actor/kl_coef'])).toEqual([0, 0.05, 0]);
  }, 120_000);

  it('fits the tokenizer of the run without stages when every stage plays tags the splits already play', () => {
    const plain = loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), TINY_LAKE_OVERRIDES);
    const base = fitRunTokenizer(plain);
    const sameTags = fitRunTokenizer(
      loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [...TINY_LAKE_OVERRIDES, 'es_manager.train.stages=[{from_iteration: 5, env_configs: {tags: [FrozenLakeNonSlip], n_groups: [2]}}]']),
    );
    expect(sameTags.toJSON()).toEqual(base.toJSON());
    // A stage on an env neither split plays (the bandit) adds its words.
    const otherEnv = fitRunTokenizer(
      loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [...TINY_LAKE_OVERRIDES, 'es_manager.train.stages=[{from_iteration: 5, env_configs: {tags: [Bandit], n_groups: [2]}}]']),
    );
    expect(otherEnv.toJSON().pieces).toEqual(expect.arrayContaining(['Phoenix', 'Dragon']));
    expect(base.toJSON().pieces).not.toContain('Phoenix');
  });
});
