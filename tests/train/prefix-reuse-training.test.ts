import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import type { EpisodeReport } from '../../trainer-core/train/sink';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, trainInMemory } from './helpers';

const CONFIG = join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml');
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

async function episodes(overrides: string[]): Promise<EpisodeReport[]> {
  const tmp = tempDir('prefix-reuse');
  cleanups.push(tmp.cleanup);
  const config = loadRunConfig(CONFIG, [...TINY_LAKE_OVERRIDES, 'trainer.total_training_steps=2', 'agent_proxy.max_turn=4', ...overrides]);
  const { sink } = await trainInMemory(config, { checkpointDir: tmp.dir });
  return sink.episodes;
}

describe('training with prefix reuse', () => {
  it.each([[[]], [['agent_proxy.max_context_window=2']]])('plays the same replies with the same logprobs as re-encoding every turn (%j)', async (extra) => {
    const reused = await episodes(extra);
    const full = await episodes([...extra, 'actor_rollout_ref.rollout.prefix_reuse=false']);
    expect(reused.length).toBe(full.length);
    expect(reused.some((e) => e.numTurns > 2)).toBe(true);
    reused.forEach((episode, e) => {
      expect(episode.turns.map((t) => t.response)).toEqual(full[e].turns.map((t) => t.response));
      episode.turns.forEach((turn, t) => expect(Math.abs(turn.logprobSum - full[e].turns[t].logprobSum)).toBeLessThan(1e-3));
    });
  });
});
