import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { Rng } from '../../trainer-core/rng';
import { fitRunTokenizer } from '../../trainer-core/train/models';
import { createContextManager } from '../../trainer-core/rollout/rollout-loop';
import { collectDemonstrations, demonstrationResetCount, longReplyNote, unsolvedDemonstrationsNote } from '../../trainer-core/train/demonstrations';

const SOKOBAN = join(import.meta.dirname, '../../configs/sokoban.yaml');

const SMALL = ['es_manager.train.env_groups=2', 'es_manager.train.group_size=4', 'es_manager.train.env_configs.n_groups=[2]'];

function demonstrations(overrides: string[]) {
  const cfg = loadRunConfig(SOKOBAN, [...SMALL, ...overrides]);
  const tokenizer = fitRunTokenizer(cfg);
  return collectDemonstrations({ cfg, cm: createContextManager(cfg, tokenizer), tokenizer, rng: new Rng(1) });
}

describe('warm-start demonstrations', () => {
  it('without warm_start.episodes, are four train rollouts, a group repeating its start state', () => {
    const demos = demonstrations(['warm_start.episodes=null']);
    // 4 rollouts x 8 envs, less the rooms the solver gives up on; 2 start states per rollout.
    expect(demos.length).toBeGreaterThan(16);
    expect(demos.length).toBeLessThanOrEqual(32);
    expect(new Set(demos.map((d) => d.text)).size).toBeLessThanOrEqual(8);
  });

  it("with warm_start.expert_think: plan, think the solver's whole remaining solution and answer its first move", () => {
    const cfg = loadRunConfig(SOKOBAN, [...SMALL, 'warm_start.episodes=6', 'agent_proxy.enable_think=true', 'warm_start.expert_think=plan']);
    const tokenizer = fitRunTokenizer(cfg);
    const demos = collectDemonstrations({ cfg, cm: createContextManager(cfg, tokenizer), tokenizer, rng: new Rng(1) });
    let turns = 0;
    for (const demo of demos) {
      const { inputIds, lossMask, documentIds } = demo.sequence;
      const replies: number[][] = [];
      inputIds.forEach((id, t) => lossMask[t] === 1 && (replies[documentIds[t]] ??= []).push(id));
      const plans = replies.map((ids) => /^(.*)<\/think><answer>(\w+)<\/answer>/.exec(tokenizer.decode(ids)));
      plans.forEach((match, k) => {
        expect(match).not.toBeNull();
        const plan = match![1].trim().split(/\s+/);
        expect(plan[0]).toBe(match![2]);
        // Each turn's plan is the one before it less the move just made: the solver's path, followed.
        if (k > 0) expect(plan).toEqual(plans[k - 1]![1].trim().split(/\s+/).slice(1));
        turns++;
      });
    }
    expect(turns).toBeGreaterThan(12);
  });

  it('refuse warm_start.expert_think: plan without thinking, naming both keys', () => {
    expect(() => loadRunConfig(SOKOBAN, ['agent_proxy.enable_think=false', 'warm_start.expert_think=plan'])).toThrow(/expert_think: plan.*agent_proxy\.enable_think: true/);
  });

  it('with warm_start.episodes, are that many, each from its own start state', () => {
    const demos = demonstrations(['warm_start.episodes=40']);
    expect(demos).toHaveLength(40);
    expect(new Set(demos.map((d) => d.text)).size).toBe(40);
    expect(demos.every((d) => d.sequence.lossMask.some((m) => m === 1))).toBe(true);
  });

  it("say where the solver's replies are longer than the rollout's response_length, which would cut them", () => {
    const demos = demonstrations(['warm_start.episodes=6']);
    const lengths = demos.flatMap((d) => d.replyTokens ?? []);
    // Each counted as the rollout counts a reply: the reply's tokens and its end of turn.
    expect(lengths.length).toBe(demos.reduce((n, d) => n + d.sequence.lossMask.filter((m, t) => m === 1 && (t === 0 || d.sequence.lossMask[t - 1] === 0)).length, 0));
    const longest = Math.max(...lengths);
    // The shipped config's 24 tokens hold its plans whole.
    expect(longReplyNote(demos, 24)).toBeNull();
    expect(longReplyNote(demos, longest)).toBeNull();
    const note = longReplyNote(demos, longest - 1);
    expect(note).toMatch(new RegExp(`^note: \\d+ of the warm start's ${lengths.length} demonstrated replies are longer than actor_rollout_ref\\.rollout\\.response_length \\(${longest - 1} tokens, the end of turn included; the longest ${longest}\\).*raise response_length to ${longest}`));
  });

  it("say where not one of the solver's demonstrated episodes succeeded", () => {
    const demos = demonstrations(['warm_start.episodes=6']);
    // Sokoban's solver solves the rooms it does not give up on.
    expect(demos.every((d) => d.success === true)).toBe(true);
    expect(unsolvedDemonstrationsNote(demos, 'expert')).toBeNull();
    const failed = demos.map((d) => ({ ...d, success: false }));
    expect(unsolvedDemonstrationsNote(failed, 'expert')).toBe(
      "note: none of the warm start's 6 demonstrated episodes succeeded: it imitates a solver that does not reach the goal; turnlab check <env> plays the solver's plans and says where they go wrong",
    );
    // Random valid moves are not meant to succeed.
    expect(unsolvedDemonstrationsNote(failed, 'random-valid')).toBeNull();
  });

  it('play no validation board: a split of one group a round starts past the validation seeds', () => {
    const one = loadRunConfig(SOKOBAN, ['es_manager.train.env_groups=1', 'es_manager.train.group_size=1', 'es_manager.train.env_configs.n_groups=[1]', 'warm_start.episodes=64']);
    // Seeds from start_seed + reset x groups: with one group the usual million was validation's first board.
    const { start_seed: valStart, env_groups: valGroups } = one.es_manager.val;
    expect(valStart).toBe(1_000_000);
    const reset = demonstrationResetCount(one, 1, 1);
    expect(one.es_manager.train.start_seed + reset).toBe(valStart + valGroups);
    // Any other size keeps its seeds, and so its runs.
    const shipped = loadRunConfig(SOKOBAN, []);
    expect(demonstrationResetCount(shipped, 256, 256)).toBe(1_000_000);
  });
});
