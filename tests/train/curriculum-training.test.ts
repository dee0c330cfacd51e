import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { fitRunTokenizer } from '../../trainer-core/train/models';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, trainInMemory } from './helpers';

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

  it('fits the tokenizer of the run without stages when every stage plays tags the splits already play', () => {
    const plain = loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), TINY_LAKE_OVERRIDES);
    const base = fitRunTokenizer(plain);
    const sameTags = fitRunTokenizer(
      loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [...TINY_LAKE_OVERRIDES, 'es_manager.train.stages=[{from_iteration: 5, env_configs: {tags: [FrozenLakeNonSlip], n_groups: [2]}}]']),
    );
    expect(sameTags.toJSON()).toEqual(base.toJSON());
    // A stage on an env neither split plays (Sokoban) adds its text.
    const otherEnv = fitRunTokenizer(
      loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [...TINY_LAKE_OVERRIDES, 'es_manager.train.stages=[{from_iteration: 5, env_configs: {tags: [SimpleSokoban], n_groups: [2]}}]']),
    );
    expect(otherEnv.toJSON()).not.toEqual(base.toJSON());
  });
});
