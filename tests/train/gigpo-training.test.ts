import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { AdvantageResult } from '../../trainer-core/algo/types';
import type { GigpoInput } from '../../trainer-core/algo/gigpo';
import { loadRunConfig } from '../../trainer-core/config';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, trainInMemory } from './helpers';

// The real computeGigpo, watched: the test checks what the trainer hands it and what it keeps.
const calls: Array<{ input: GigpoInput; output: AdvantageResult }> = [];
vi.mock('../../trainer-core/algo/gigpo', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../trainer-core/algo/gigpo')>();
  return {
    ...real,
    computeGigpo: (input: GigpoInput) => {
      const output = real.computeGigpo(input);
      calls.push({ input, output });
      return output;
    },
  };
});

const tmp = tempDir('gigpo');
afterAll(() => tmp.cleanup());

describe('adv_estimator gigpo in training', () => {
  it("hands GiGPO each turn's observation as its state and each episode's group, and stores its advantage on each turn", async () => {
    const config = loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [
      ...TINY_LAKE_OVERRIDES,
      'es_manager.train.group_size=4',
      'trainer.total_training_steps=2',
      'trainer.test_freq=0',
      'algorithm.adv_estimator=gigpo',
      'algorithm.gamma=0.9',
      'algorithm.gigpo.step_advantage_w=0.5',
    ]);
    const { sink, result } = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'run') });
    expect(result.status).toBe('completed');
    expect(sink.metrics.get(2)).toHaveProperty('actor/pg_loss');
    expect(calls).toHaveLength(2);

    let multiTurnEpisodes = 0;
    let stepTermSeen = false;
    for (const [i, { input, output }] of calls.entries()) {
      expect(input).toMatchObject({ gamma: 0.9, stepWeight: 0.5, normByStd: true });
      const trained = sink.episodes.filter((e) => e.iteration === i + 1 && e.split === 'train' && !e.filteredOut);
      expect(input.rows).toBe(trained.length);
      expect(input.groupIds).toEqual(trained.map((e) => e.groupId));
      // One context window a turn here, so each row's turns are the episode's turns in order.
      expect(input.stateKeys).toEqual(trained.map((e) => e.turns.map((t) => t.observation)));
      trained.forEach((episode, row) => {
        const perTurn = input.turnEnds[row].map((end) => output.advantages[row * input.cols + end]);
        episode.turns.forEach((turn, k) => expect(turn.advantageMean).toBeCloseTo(perTurn[k], 6));
        if (episode.turns.length > 1) {
          multiTurnEpisodes++;
          // GRPO alone gives every turn of an episode one advantage; GiGPO's step term separates
          // turns whose returns differ among the group's turns from the same state.
          if (perTurn.some((a) => Math.abs(a - perTurn[0]) > 1e-3)) stepTermSeen = true;
        }
      });
    }
    expect(multiTurnEpisodes).toBeGreaterThan(0);
    expect(stepTermSeen).toBe(true);
  });
});
