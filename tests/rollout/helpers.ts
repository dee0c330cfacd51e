import { z } from 'zod';
import { parseRunConfig, type RunConfig } from '../../trainer-core/config';
import type { Env, EnvSpec, StateRender, StepResult } from '../../trainer-core/envs/types';
import type { GenerateOptions, GeneratedResponse, ResponseGenerator } from '../../trainer-core/rollout/rollout-loop';
import type { Tokenizer } from '../../trainer-core/rollout/tokenizer';
import { endsWithIds } from '../../trainer-core/token-ids';

/** One character per token: id = code point + 2; 0 pads, 1 ends a turn. */
export class CharTokenizer implements Tokenizer {
  readonly endOfTurnId = 1;
  readonly padId = 0;
  readonly vocabSize = 0x110000 + 2;
  encode(text: string): number[] {
    return Array.from(text, (ch) => (ch.codePointAt(0) as number) + 2);
  }
  decode(ids: readonly number[]): string {
    return ids.filter((id) => id >= 2).map((id) => String.fromCodePoint(id - 2)).join('');
  }
}

/**
 * A corridor: the player starts at 0 and must reach the goal at `length` (2 + seed % 3).
 * Right moves on, Left moves back (not effective at 0). Reward 1 at the goal.
 */
export class CorridorEnv implements Env {
  seed = -1;
  position = 0;
  length = 0;
  done = false;
  reset(seed: number): string {
    this.seed = seed;
    this.length = 2 + (seed % 3);
    this.position = 0;
    this.done = false;
    return this.render();
  }
  step(action: string): StepResult {
    const before = this.position;
    if (action === 'Right') this.position = Math.min(this.length, this.position + 1);
    if (action === 'Left') this.position = Math.max(0, this.position - 1);
    const atGoal = this.position === this.length;
    this.done = atGoal;
    return {
      observation: this.render(),
      reward: atGoal ? 1 : 0,
      done: atGoal,
      info: { success: atGoal, actionIsValid: true, actionIsEffective: this.position !== before },
    };
  }
  render(): string {
    return Array.from({ length: this.length + 1 }, (_, i) => (i === this.position ? 'P' : i === this.length ? 'G' : '_')).join('');
  }
  renderState(): StateRender {
    return { kind: 'text', text: this.render(), fields: { position: this.position } };
  }
  instructions(): string {
    return 'Walk to the goal.';
  }
  legend(): string {
    return 'P: player, G: goal, _: floor';
  }
  actionNames(): string[] {
    return ['Left', 'Right'];
  }
}

export const corridorSpec: EnvSpec<{ bonus: number }> = {
  type: 'corridor',
  description: 'test corridor',
  optionsSchema: z.strictObject({ bonus: z.number().default(0) }),
  create: () => new CorridorEnv(),
  multiAction: true,
};

export const resolveCorridor = (): EnvSpec => corridorSpec as unknown as EnvSpec;

/** A run config with corridor envs: `groups` x `groupSize` for train, 3 x 1 for val. */
export function corridorConfig(overrides: string[] = [], groups = 2, groupSize = 3): RunConfig {
  return parseRunConfig(
    {
      // A custom env (module) is not checked by the registry at parse time; tests resolve it themselves.
      custom_envs: { Corridor: { env_type: 'corridor', module: './corridor', max_actions_per_traj: 4 } },
      es_manager: {
        train: { env_groups: groups, group_size: groupSize, start_seed: 10, env_configs: { tags: ['Corridor'], n_groups: [groups] } },
        val: { env_groups: 3, group_size: 1, start_seed: 123, env_configs: { tags: ['Corridor'], n_groups: [3] } },
      },
    },
    'test',
    overrides,
  );
}

/** Replies by script: `reply(promptText, envCall)`; logprobs are -(i + 1) / 100 per token. */
export class ScriptedGenerator implements ResponseGenerator {
  readonly calls: Array<{ prompts: number[][]; options: GenerateOptions }> = [];
  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly reply: (prompt: string, index: number) => string,
    private readonly endWithStop = true,
  ) {}
  async generate(prompts: number[][], options: GenerateOptions): Promise<GeneratedResponse[]> {
    this.calls.push({ prompts: prompts.map((p) => [...p]), options });
    return prompts.map((prompt, index) => {
      let ids = this.tokenizer.encode(this.reply(this.tokenizer.decode(prompt), index));
      // A sampler stops at the first stop sequence it produces.
      const stopAt = ids.findIndex((_, i) => options.stopSequences.some((s) => endsWithIds(ids.slice(0, i + 1), s)));
      if (stopAt >= 0) ids = ids.slice(0, stopAt + 1);
      const withStop = this.endWithStop && stopAt < 0 ? [...ids, this.tokenizer.endOfTurnId] : ids;
      const tokenIds = withStop.slice(0, options.maxNewTokens[index]);
      return { tokenIds, logprobs: tokenIds.map((_, i) => -(i + 1) / 100) };
    });
  }
}
