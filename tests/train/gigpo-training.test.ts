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

/** Two GiGPO iterations of the shrunk non-slippery lake, groups of four. */
function tinyGigpoConfig(overrides: string[]) {
  return loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [
    ...TINY_LAKE_OVERRIDES,
    'es_manager.train.group_size=4',
    'trainer.total_training_steps=2',
    'trainer.test_freq=0',
    'algorithm.adv_estimator=gigpo',
    ...overrides,
  ]);
}
afterAll(() => tmp.cleanup());

describe('adv_estimator gigpo in training', () => {
  it("hands GiGPO each turn's observation as its state, its reward on its turn and each episode's group, and stores its advantage on each turn", async () => {
    const config = tinyGigpoConfig(['algorithm.gamma=0.9', 'algorithm.gigpo.step_advantage_w=0.5']);
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
      // One context window a turn here, so each row's turns are the episode's turns in order; the
      // prompt does not show the actions left, so a state is its observation.
      trained.forEach((e, row) => {
        expect(input.stateKeys[row]).toHaveLength(e.turns.length);
        e.turns.forEach((t, k) => expect(input.stateKeys[row][k]).toContain(t.observation));
      });
      const keyOf = new Map<string, string>();
      trained.forEach((e, row) => e.turns.forEach((t, k) => {
        const key = input.stateKeys[row][k];
        expect(keyOf.get(t.observation) ?? key).toBe(key);
        keyOf.set(t.observation, key);
      }));
      trained.forEach((episode, row) => {
        // Each turn's reward (env reward plus format penalty) on its own last token, with
        // agent_proxy.use_turn_scores off: lumped on the episode's end, GiGPO's step returns of one
        // state would differ only by the distance to that end.
        expect(config.agent_proxy.use_turn_scores).toBe(false);
        episode.turns.forEach((turn, k) => expect(input.rewards[row * input.cols + input.turnEnds[row][k]]).toBeCloseTo(turn.reward, 6));
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

  it('keeps a board reached with different actions left apart when the prompt shows them', async () => {
    calls.length = 0;
    const config = tinyGigpoConfig(['agent_proxy.show_actions_left=true']);
    const { sink, result } = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'run-left') });
    expect(result.status).toBe('completed');
    // In a failed episode every turn costs the same, so the same square seen with fewer moves to
    // go has a higher discounted return: in one step group the std normalisation would turn that
    // difference into advantages of about 1. Those turns must be two states.
    let revisits = 0;
    for (const [i, { input }] of calls.entries()) {
      const trained = sink.episodes.filter((e) => e.iteration === i + 1 && e.split === 'train' && !e.filteredOut);
      const seen = new Map<string, { left: number; key: string }>();
      trained.forEach((e, row) => e.turns.forEach((t, k) => {
        const key = input.stateKeys[row][k];
        // An invalid reply plays no action, so the budget left is what the earlier turns played.
        const left = 10 - e.turns.slice(0, k).reduce((sum, u) => sum + u.numValidActions, 0);
        const id = `${e.groupId}/${t.observation}`;
        const before = seen.get(id);
        if (before && before.left !== left) {
          revisits++;
          expect(key).not.toBe(before.key);
        }
        seen.set(id, { left, key });
      }));
    }
    expect(revisits).toBeGreaterThan(0);
  });
});
