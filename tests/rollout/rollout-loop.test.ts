import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunConfig, type RunConfig } from '../../trainer-core/config';
import { loadCustomEnvSpec } from '../../trainer-core/envs/custom-loader';
import { EnvStateManager } from '../../trainer-core/rollout/es-manager';
import { createContextManager, rolloutSettingsFromConfig, runRollout } from '../../trainer-core/rollout/rollout-loop';
import { CharTokenizer, ScriptedGenerator, corridorConfig, resolveCorridor } from './helpers';

const tok = new CharTokenizer();

async function roll(cfg: RunConfig, reply: (prompt: string, index: number) => string, split: 'train' | 'val' = 'train', endWithStop = true) {
  const generator = new ScriptedGenerator(tok, reply, endWithStop);
  const result = await runRollout({
    esManager: new EnvStateManager(cfg, split, { resolveSpec: resolveCorridor }),
    contextManager: createContextManager(cfg, tok),
    tokenizer: tok,
    generator,
    settings: rolloutSettingsFromConfig(cfg, split),
  });
  return { result, generator };
}

describe('runRollout', () => {
  it('plays every env to the end and trains on exactly the sampled ids', async () => {
    const cfg = corridorConfig(['agent_proxy.max_turn=4'], 1, 2);
    const { result, generator } = await roll(cfg, () => '<think>go</think><answer>Right</answer>');
    expect(result.episodes).toHaveLength(2);
    for (const episode of result.episodes) {
      // seed 10: corridor of length 3, one step per turn
      expect(episode).toMatchObject({ success: true, endReason: 'env-done', numActions: 3, envScore: 1, penalty: 0 });
      const seq = episode.sequence;
      expect(seq.turnEnds).toHaveLength(3);
      const masked = seq.inputIds.filter((_, i) => seq.lossMask[i] === 1);
      expect(masked).toEqual(episode.turns.flatMap((t) => t.generatedIds));
      expect(seq.logprobs.filter((_, i) => seq.lossMask[i] === 1)).toEqual(episode.turns.flatMap((t) => t.logprobs));
      for (const end of seq.turnEnds) expect(seq.inputIds[end]).toBe(tok.endOfTurnId);
      expect(seq.tokenRewards[seq.turnEnds[2]]).toBe(1);
      expect(seq.tokenRewards.filter((r) => r !== 0)).toHaveLength(1);
      expect(new Set(seq.documentIds)).toEqual(new Set([0]));
    }
    // Every context the generator saw is a prefix of the final training sequence.
    const finalIds = result.episodes[0].sequence.inputIds;
    for (const call of generator.calls) expect(finalIds.slice(0, call.prompts[0].length)).toEqual(call.prompts[0]);
    expect(generator.calls.map((c) => c.prompts.length)).toEqual([2, 2, 2]);
  });

  it('keeps zero-reward turns as boundaries and places turn scores at turn ends', async () => {
    const cfg = corridorConfig(['agent_proxy.use_turn_scores=true', 'es_manager.format_penalty=-0.1'], 1, 1);
    const replies = ['<think></think><answer>Left</answer>', 'oops', '<think></think><answer>Right||Right||Right</answer>'];
    let turn = 0;
    const { result } = await roll(cfg, () => replies[turn++]);
    const [episode] = result.episodes;
    expect(episode.turns.map((t) => t.reward)).toEqual([0, -0.1, 1]);
    const seq = episode.sequence;
    expect(seq.turnEnds).toHaveLength(3);
    expect(seq.turnEnds.map((p) => seq.tokenRewards[p])).toEqual([0, -0.1, 1]);
    expect(episode).toMatchObject({ score: 0.9, trainReward: 0.9, success: true });
  });

  it('sums the reward, penalties included, at the episode end by default', async () => {
    const cfg = corridorConfig(['agent_proxy.max_turn=2'], 1, 1);
    const { result } = await roll(cfg, () => 'no tags');
    const [episode] = result.episodes;
    expect(episode).toMatchObject({ endReason: 'max-turn', score: -0.2, success: false });
    const seq = episode.sequence;
    expect(seq.tokenRewards[seq.turnEnds[1]]).toBeCloseTo(-0.2);
    expect(seq.tokenRewards[seq.turnEnds[0]]).toBe(0);
  });

  it('adds an untrained end-of-turn token after a reply cut at the token limit', async () => {
    const cfg = corridorConfig(['agent_proxy.max_turn=2', 'actor_rollout_ref.rollout.response_length=5'], 1, 1);
    const { result, generator } = await roll(cfg, () => '<think>long</think>', 'train', false);
    const [episode] = result.episodes;
    expect(episode.turns.every((t) => t.cut && t.generatedIds.length === 5)).toBe(true);
    const seq = episode.sequence;
    expect(seq.inputIds[seq.turnEnds[0] + 1]).toBe(tok.endOfTurnId);
    expect(seq.lossMask[seq.turnEnds[0] + 1]).toBe(0);
    expect(generator.calls[0].options.maxNewTokens).toEqual([5]);
  });

  it('ends a reply at a stop string, keeps the string, and closes the turn with an untrained end-of-turn', async () => {
    const cfg = corridorConfig(['agent_proxy.max_turn=2', 'agent_proxy.enable_think=false', 'actor_rollout_ref.rollout.stop=["</answer>"]'], 1, 1);
    const { result, generator } = await roll(cfg, () => '<answer>Right</answer>Left</answer>');
    expect(generator.calls[0].options.stopSequences).toEqual([tok.encode('</answer>')]);
    const [episode] = result.episodes;
    expect(episode.turns.map((t) => [t.responseText, t.cut])).toEqual([
      ['<answer>Right</answer>', false],
      ['<answer>Right</answer>', false],
    ]);
    const seq = episode.sequence;
    expect(seq.inputIds[seq.turnEnds[0]]).toBe(tok.encode('>')[0]);
    expect(seq.inputIds[seq.turnEnds[0] + 1]).toBe(tok.endOfTurnId);
    expect(seq.lossMask[seq.turnEnds[0] + 1]).toBe(0);
  });

  it('ends an episode whose context no longer fits the model', async () => {
    const cfg = corridorConfig(['agent_proxy.template=compact', 'model.context_length=40', 'agent_proxy.max_turn=5'], 1, 1);
    const { result } = await roll(cfg, () => 'Left</answer>');
    const [episode] = result.episodes;
    expect(episode.endReason).toBe('context-full');
    expect(episode.sequence.inputIds.length).toBeLessThanOrEqual(40);
    expect(result.metrics['train/Corridor/context_full']).toBe(1);
  });

  it('leaves room in the context for the end-of-turn that closes a reply cut by it', async () => {
    // The reply never ends by itself, so it is cut by the room left and closed with an untrained
    // end-of-turn: that token must fit too (a row of 41 tokens did not fit a model of 40).
    for (const window of ['null', '1']) {
      const cfg = corridorConfig(['agent_proxy.template=compact', 'model.context_length=40', `agent_proxy.max_context_window=${window}`], 1, 1);
      const { result } = await roll(cfg, () => 'x'.repeat(100), 'train', false);
      const [episode] = result.episodes;
      expect(episode.endReason).toBe('context-full');
      expect(episode.turns.at(-1)?.cut).toBe(true);
      expect(episode.sequence.inputIds.length).toBe(40);
    }
  });

  it('fits the guess-number example with the default template in 2048 tokens (it made 2049)', async () => {
    const spec = await loadCustomEnvSpec(join(import.meta.dirname, '../../examples/custom-env/guess-number.ts'));
    const cfg = parseRunConfig(
      {
        custom_envs: { Guess: { env_type: 'custom', module: 'guess-number.ts', max_actions_per_traj: 7 } },
        agent_proxy: { max_turn: 7 },
        es_manager: { train: { env_groups: 1, group_size: 2, env_configs: { tags: ['Guess'], n_groups: [1] } } },
      },
      'test',
    );
    expect([cfg.agent_proxy.template, cfg.model.context_length]).toEqual(['ragen', 2048]);
    const generator = new ScriptedGenerator(tok, () => 'y'.repeat(1000), false);
    const result = await runRollout({
      esManager: new EnvStateManager(cfg, 'train', { resolveSpec: () => spec }),
      contextManager: createContextManager(cfg, tok),
      tokenizer: tok,
      generator,
      settings: rolloutSettingsFromConfig(cfg, 'train'),
    });
    for (const episode of result.episodes) {
      expect(episode.endReason).toBe('context-full');
      expect(episode.sequence.inputIds.length).toBe(2048);
    }
  });

  it('bounds the packed training row, not only the window, by the context length', async () => {
    const cfg = corridorConfig(['agent_proxy.template=compact', 'agent_proxy.max_context_window=1', 'model.context_length=40', 'agent_proxy.max_turn=5'], 1, 1);
    const { result, generator } = await roll(cfg, () => 'Left</answer>');
    const [episode] = result.episodes;
    // Each window alone would fit many times over; the packed row of all turns does not.
    expect(Math.max(...generator.calls.map((call) => call.prompts[0].length))).toBeLessThan(20);
    expect(episode.endReason).toBe('context-full');
    expect(episode.turns.length).toBeLessThan(5);
    expect(episode.sequence.inputIds.length).toBeLessThanOrEqual(40);
  });

  it('uses validation sampling settings and reports metrics named per split and tag', async () => {
    const cfg = corridorConfig(['actor_rollout_ref.rollout.val_kwargs.temperature=0.25', 'agent_proxy.max_turn=1']);
    const { result, generator } = await roll(cfg, (_, i) => (i === 0 ? '<think></think><answer>Right||right||RIGHT</answer>' : '<think></think><answer>Left||Up</answer>'), 'val');
    expect(generator.calls[0].options).toMatchObject({ temperature: 0.25, doSample: true, stopTokenId: tok.endOfTurnId });
    // seeds 123, 124, 125: lengths 2, 3, 4; only the first env reaches its goal
    expect(result.episodes.map((e) => e.success)).toEqual([true, false, false]);
    expect(result.metrics['val/Corridor/success']).toBeCloseTo(1 / 3);
    expect(result.metrics['val/Corridor/pass@1']).toBeCloseTo(1 / 3);
    expect(result.metrics['val/Corridor/action_is_valid']).toBeCloseTo((1 + 0.5 + 0.5) / 3);
    expect(result.metrics['val/Corridor/num_actions']).toBeCloseTo((2 + 1 + 1) / 3);
    expect(result.episodes[1].metrics.action_is_effective).toBe(0);
  });

  it("shows the model the environment's reward of its last turn, not the format penalty (RAGEN's prompt)", async () => {
    const cfg = corridorConfig(['agent_proxy.max_turn=2'], 1, 1);
    // The first reply names no action: its turn costs the penalty, and the env pays nothing.
    const { result } = await roll(cfg, (prompt) => (prompt.includes('Turn 2') ? 'Right</think><answer>Right</answer>' : 'x</think><answer>Jump</answer>'));
    const [episode] = result.episodes;
    expect(episode.turns[0].penalty).toBe(-0.1);
    expect(episode.messages.filter((m) => m.role === 'user')[1].content.startsWith('Reward:\n0\n')).toBe(true);
    // The budget line is said for named actions (the corridor's), as RAGEN's prompt does.
    expect(episode.messages[1].content).toContain('You can make up to 4 actions, separated by the action separator " || "');
  });

  it('normalises episode scores within groups when asked', async () => {
    const cfg = corridorConfig(['agent_proxy.reward_normalization.method=mean', 'agent_proxy.max_turn=1'], 1, 2);
    const { result } = await roll(cfg, (_, i) => (i === 0 ? '<think></think><answer>Right||Right||Right</answer>' : '<think></think><answer>Left</answer>'));
    expect(result.episodes.map((e) => e.trainReward)).toEqual([0.5, -0.5]);
    expect(result.episodes.map((e) => e.score)).toEqual([1, 0]);
  });

  it('trains every turn in the window it was sampled in under a context window', async () => {
    const cfg = corridorConfig(['agent_proxy.max_context_window=1', 'agent_proxy.max_turn=3'], 1, 1);
    const { result, generator } = await roll(cfg, () => '<think></think><answer>Left</answer>');
    const [episode] = result.episodes;
    expect(episode.turns).toHaveLength(3);
    const seq = episode.sequence;
    expect(seq.turnNumbers).toEqual([1, 2, 3]);
    // One document per turn: the context the model was given, then its reply (the only tokens trained).
    const contexts = generator.calls.map((call) => call.prompts[0]);
    expect(contexts).toHaveLength(3);
    for (let d = 0; d < 3; d++) {
      const document = seq.inputIds.filter((_, i) => seq.documentIds[i] === d);
      const mask = seq.lossMask.filter((_, i) => seq.documentIds[i] === d);
      expect(document).toEqual([...contexts[d], ...episode.turns[d].generatedIds]);
      expect(mask).toEqual([...contexts[d].map(() => 0), ...episode.turns[d].generatedIds.map(() => 1)]);
    }
    // The window drops earlier turns: turn 3's context does not hold turn 2's context and reply.
    expect(contexts[2].length).toBeLessThan(contexts[1].length + episode.turns[1].generatedIds.length);
  });

  it('says under a state which actions of the last turn left it unchanged, with show_unchanged on', async () => {
    // Left at the corridor's start changes nothing, an answer naming no action plays nothing, Right moves.
    const moves = ['Left', 'Jump', 'Right', 'Right'];
    const prompts = async (showUnchanged: boolean) => {
      const cfg = corridorConfig(
        ['agent_proxy.max_context_window=1', 'agent_proxy.max_turn=4', 'agent_proxy.template=compact', `agent_proxy.show_unchanged=${showUnchanged}`],
        1,
        1,
      );
      let turn = 0;
      const { generator } = await roll(cfg, () => `</think><answer>${moves[turn++]}</answer>`);
      return generator.calls.map((call) => tok.decode(call.prompts[0]));
    };
    const shown = await prompts(true);
    expect(shown).toHaveLength(4);
    expect(shown[0]).not.toContain('<same>');
    expect(shown[1]).toBe('<obs>\nP__G\n<same>Left\n<think>');
    // A reply that played no action did not try to change the state: no line.
    expect(shown[2]).toBe('<obs>\nP__G\n<think>');
    expect(shown[3]).not.toContain('<same>');
    const hidden = await prompts(false);
    expect(hidden).toEqual(shown.map((p) => p.replace('<same>Left\n', '')));
  });
});
