import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../trainer-core/config';
import type { EnvSpec } from '../../trainer-core/envs/types';
import { EnvStateManager } from '../../trainer-core/rollout/es-manager';
import { createContextManager, rolloutSettingsFromConfig, runRollout } from '../../trainer-core/rollout/rollout-loop';
import { CharTokenizer, CorridorEnv, ScriptedGenerator, corridorConfig, corridorSpec, resolveCorridor } from './helpers';

const tok = new CharTokenizer();

/** The corridor with a solver: the goal is `length - position` moves away. */
class SolvedCorridor extends CorridorEnv {
  distanceToGoal(): number {
    return this.length - this.position;
  }
}
const resolveSolved = (): EnvSpec => ({ ...corridorSpec, create: () => new SolvedCorridor() }) as unknown as EnvSpec;

const SHAPING = ['algorithm.turn_shaping={coef: 0.5, gamma: 1}'];

async function roll(split: 'train' | 'val', replies: string[], extra: string[] = []) {
  const cfg = corridorConfig([...SHAPING, ...extra], 1, 1);
  let turn = 0;
  return runRollout({
    esManager: new EnvStateManager(cfg, split, { resolveSpec: resolveSolved, potentials: split === 'train' }),
    contextManager: createContextManager(cfg, tok),
    tokenizer: tok,
    generator: new ScriptedGenerator(tok, () => replies[Math.min(turn++, replies.length - 1)]),
    settings: rolloutSettingsFromConfig(cfg, split),
  });
}

describe('algorithm.turn_shaping in the rollout', () => {
  it('adds each turn its bonus at the turn end, the episode reward on the last', async () => {
    // seed 10: the goal 3 moves away; phi -3, -2, -1 before the three turns, 0 at the end.
    const { episodes } = await roll('train', ['<think></think><answer>Right</answer>']);
    const [episode] = episodes;
    expect(episode).toMatchObject({ success: true, envScore: 1, score: 1 });
    const seq = episode.sequence;
    expect(seq.turnEnds.map((p) => seq.tokenRewards[p])).toEqual([0.5, 0.5, 1.5]);
    expect(episode.trainReward).toBeCloseTo(2.5, 12);
  });

  it('gives a wasted move nothing', async () => {
    // Left at the start does not move (phi stays -3): 0.5 * (-3 + 3) = 0; then Right, Right, Right.
    const { episodes } = await roll('train', ['<think></think><answer>Left</answer>', '<think></think><answer>Right</answer>']);
    const seq = episodes[0].sequence;
    expect(seq.turnEnds.map((p) => seq.tokenRewards[p])).toEqual([0, 0.5, 0.5, 1.5]);
  });

  it('pays the distance left at a cut-off end only when the end absorbs', async () => {
    // Four Lefts at the start: phi -3 throughout; the budget ends the episode.
    const left = ['<think></think><answer>Left</answer>'];
    const absorbing = (await roll('train', left)).episodes[0];
    expect(absorbing.endReason).toBe('action-budget');
    expect(absorbing.sequence.turnEnds.map((p) => absorbing.sequence.tokenRewards[p])).toEqual([0, 0, 0, 1.5]);
    const bootstrap = (await roll('train', left, ['algorithm.turn_shaping.end=bootstrap'])).episodes[0];
    expect(bootstrap.sequence.turnEnds.map((p) => bootstrap.sequence.tokenRewards[p])).toEqual([0, 0, 0, 0]);
  });

  it('leaves validation rewards unshaped', async () => {
    const { episodes } = await roll('val', ['<think></think><answer>Right</answer>']);
    for (const episode of episodes) expect(episode.trainReward).toBe(episode.score);
  });

  it('is refused with one line naming the key when an env has no solver', () => {
    const cfg = corridorConfig(SHAPING, 1, 1);
    const build = () => new EnvStateManager(cfg, 'train', { resolveSpec: resolveCorridor });
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/`algorithm.turn_shaping` shapes rewards by the solver's distance to the goal, but env `Corridor` \(env_type corridor\) has no solver/);
  });
});
