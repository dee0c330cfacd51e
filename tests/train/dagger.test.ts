import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { ConfigError, loadRunConfig } from '../../trainer-core/config';
import { getEnvSpec } from '../../trainer-core/envs/registry';
import { Transformer } from '../../trainer-core/model/transformer';
import { Rng } from '../../trainer-core/rng';
import { EnvStateManager } from '../../trainer-core/rollout/es-manager';
import { createContextManager, type GeneratedResponse, type ResponseGenerator } from '../../trainer-core/rollout/rollout-loop';
import type { Tokenizer } from '../../trainer-core/rollout/tokenizer';
import { playRelabelledEpisodes } from '../../trainer-core/train/dagger';
import { distinctStartsConfig, type Demonstration } from '../../trainer-core/train/demonstrations';
import { fitRunTokenizer } from '../../trainer-core/train/models';
import { warmStart } from '../../trainer-core/train/warm-start';

const SOKOBAN = join(import.meta.dirname, '../../configs/sokoban.yaml');
const SMALL = ['es_manager.train.env_groups=2', 'es_manager.train.group_size=4', 'es_manager.train.env_configs.n_groups=[2]', 'agent_proxy.enable_think=false', 'warm_start.expert_think=empty'];

beforeAll(async () => {
  await selectBackend('wasm');
});

/** A learner that always writes the same move, so the episodes leave the solver's path at once. */
class FixedMove implements ResponseGenerator {
  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly move: string,
  ) {}
  async generate(prompts: number[][]): Promise<GeneratedResponse[]> {
    const ids = [...this.tokenizer.encode(`${this.move}</answer>`), this.tokenizer.endOfTurnId];
    return prompts.map(() => ({ tokenIds: ids, logprobs: ids.map(() => 0) }));
  }
}

/** The demonstrated move of each turn (each training document), decoded from its reply tokens. */
function repliedMoves(demonstration: Demonstration, tokenizer: Tokenizer): string[] {
  const { inputIds, lossMask, documentIds } = demonstration.sequence;
  const replies: number[][] = [];
  inputIds.forEach((id, t) => {
    if (lossMask[t] !== 1) return;
    (replies[documentIds[t]] ??= []).push(id);
  });
  return replies.filter(Boolean).map((ids) => /^\s*(\w+)/.exec(tokenizer.decode(ids))?.[1] ?? '');
}

describe('DAgger relabelling (warm_start.dagger_rounds)', () => {
  it('plays the policy move but records the solver move from each board the policy reached', async () => {
    const cfg = loadRunConfig(SOKOBAN, SMALL);
    const tokenizer = fitRunTokenizer(cfg);
    const demos = await playRelabelledEpisodes({
      cfg,
      cm: createContextManager(cfg, tokenizer),
      tokenizer,
      generator: new FixedMove(tokenizer, 'Left'),
      firstReset: 7,
      round: 1,
      episodes: 8,
      rng: new Rng(1),
    });
    expect(demos).toHaveLength(8);
    // The same rooms, replayed by hand: the env moves Left every turn; the label is the solver's move.
    const seeds = (() => {
      const es = new EnvStateManager(distinctStartsConfig(cfg), 'train');
      es.restoreState({ resetCount: 7 });
      return es.nextGroupSeeds();
    })();
    const spec = getEnvSpec('sokoban');
    let offPath = 0;
    demos.forEach((demo, i) => {
      const env = spec.create(spec.optionsSchema.parse(cfg.custom_envs.SimpleSokoban.env_config));
      env.reset(seeds[i]);
      const moves = repliedMoves(demo, tokenizer);
      expect(moves.length).toBeGreaterThan(0);
      for (const move of moves) {
        const plan = env.solve?.();
        expect(plan?.[0]).toBe(move);
        if (move !== 'Left') offPath++;
        env.step('Left');
      }
    });
    // The labels are not the learner's moves: the relabelling did something.
    expect(offPath).toBeGreaterThan(0);
    expect(demos.every((d) => d.sequence.lossMask.some((m) => m === 1))).toBe(true);
  });

  it('adds each round to the pool after its share of the steps, with the policy as trained so far', async () => {
    const policy = Transformer.create({ vocabSize: 20, contextLength: 16, dModel: 16, nLayers: 1, nHeads: 2, positionEncoding: 'rope' }, 1);
    const zeros = [0, 0, 0, 0];
    const toy = (ids: number[]): Demonstration => ({
      tag: 'Toy',
      text: '',
      sequence: { inputIds: ids, lossMask: [0, 0, 1, 1], logprobs: zeros, turnEnds: [3], turnNumbers: [1], tokenRewards: zeros, documentIds: zeros },
    });
    const steps: number[] = [];
    const calls: { round: number; afterStep: number }[] = [];
    try {
      await warmStart({
        policy,
        demonstrations: [toy([1, 2, 3, 4])],
        steps: 9,
        lr: 1e-2,
        batchSize: 4,
        gradClip: 1,
        rng: new Rng(3),
        onStep: (step) => void steps.push(step),
        relabel: {
          rounds: 2,
          play: async (round) => {
            calls.push({ round, afterStep: steps.length });
            return [toy([5, 6, 7, 8])];
          },
        },
      });
    } finally {
      policy.dispose();
    }
    expect(calls).toEqual([
      { round: 1, afterStep: 3 },
      { round: 2, afterStep: 6 },
    ]);
  });

  it('is refused without the expert warm start or with as many rounds as steps, naming the key', () => {
    expect(() => loadRunConfig(SOKOBAN, ['warm_start.mode=random-valid', 'warm_start.dagger_rounds=2'])).toThrow(ConfigError);
    expect(() => loadRunConfig(SOKOBAN, ['warm_start.mode=random-valid', 'warm_start.dagger_rounds=2'])).toThrow(/warm_start\.dagger_rounds.*warm_start\.mode: expert/);
    expect(() => loadRunConfig(SOKOBAN, ['warm_start.steps=3', 'warm_start.dagger_rounds=3'])).toThrow(/dagger_rounds.*must be below.*warm_start\.steps/);
  });
});
