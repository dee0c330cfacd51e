import { describe, expect, it } from 'vitest';
import { EnvStateManager } from '../../trainer-core/rollout/es-manager';
import { parseResponse, type ParsedResponse } from '../../trainer-core/rollout/parse-response';
import { CorridorEnv, corridorConfig, resolveCorridor } from './helpers';

const opts = { resolveSpec: resolveCorridor };
const say = (answer: string): ParsedResponse =>
  parseResponse(`<think></think><answer>${answer}</answer>`, { enableThink: true, actionSep: '||', maxActionsPerTurn: 5, actionNames: ['Left', 'Right'] });

describe('EnvStateManager groups and seeds', () => {
  it('builds n_groups x group_size envs with group ids and one seed per group', () => {
    const es = new EnvStateManager(corridorConfig([], 2, 3), 'train', opts);
    expect(es.entries.map((e) => e.groupId)).toEqual([0, 0, 0, 1, 1, 1]);
    es.reset();
    const seeds = es.allEpisodes().map((e) => e.seed);
    expect(seeds).toEqual([10, 10, 10, 11, 11, 11]);
    expect(es.entries.map((e) => (e.env as CorridorEnv).seed)).toEqual(seeds);
  });

  it('advances train seeds by the number of groups at every reset', () => {
    const es = new EnvStateManager(corridorConfig([], 2, 3), 'train', opts);
    const starts: number[][] = [];
    for (let i = 0; i < 3; i++) {
      es.reset();
      starts.push([...new Set(es.allEpisodes().map((e) => e.seed))]);
    }
    expect(starts).toEqual([[10, 11], [12, 13], [14, 15]]);
    expect(es.state()).toEqual({ resetCount: 3, seedOffset: 6 });
  });

  it('plays a list of train seeds in turn, from its start again, and resumes in it', () => {
    const es = new EnvStateManager(corridorConfig(['es_manager.train.seeds=[40, 7, 93]'], 2, 3), 'train', opts);
    const starts: number[][] = [];
    for (let i = 0; i < 3; i++) {
      es.reset();
      starts.push([...new Set(es.allEpisodes().map((e) => e.seed))]);
    }
    expect(starts).toEqual([[40, 7], [93, 40], [7, 93]]);
    const resumed = new EnvStateManager(corridorConfig(['es_manager.train.seeds=[40, 7, 93]'], 2, 3), 'train', opts);
    resumed.restoreState({ resetCount: 1 });
    expect(resumed.nextGroupSeeds()).toEqual([93, 40]);
    const val = new EnvStateManager(corridorConfig(['es_manager.train.seeds=[40, 7, 93]', 'es_manager.val.start_seed=5'], 2, 3), 'val', opts);
    expect(val.nextGroupSeeds()).toEqual([5, 6, 7]);
  });

  it('resumes the train schedule from a saved state', () => {
    const es = new EnvStateManager(corridorConfig([], 2, 3), 'train', opts);
    es.restoreState({ resetCount: 5 });
    expect(es.nextGroupSeeds()).toEqual([20, 21]);
  });

  it('carries the seeds on into a fork with fewer groups, repeating none', () => {
    const four = new EnvStateManager(corridorConfig([], 4, 1), 'train', opts);
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      four.reset();
      seen.push(...four.allEpisodes().map((e) => e.seed));
    }
    // The fork plays 2 groups a rollout from where the 4 left off (resets x 2 went back to 16).
    const two = new EnvStateManager(corridorConfig([], 2, 1), 'train', opts);
    two.restoreState(four.state());
    two.reset();
    const next = two.allEpisodes().map((e) => e.seed);
    expect(next).toEqual([22, 23]);
    expect(seen.filter((seed) => next.includes(seed))).toEqual([]);
    // A checkpoint from before the offset was kept resumes as it ran.
    const legacy = new EnvStateManager(corridorConfig([], 2, 1), 'train', opts);
    legacy.restoreState({ resetCount: 3 });
    expect(legacy.nextGroupSeeds()).toEqual([16, 17]);
  });

  it('keeps validation seeds fixed', () => {
    const es = new EnvStateManager(corridorConfig(['es_manager.val.start_seed=7']), 'val', opts);
    es.reset();
    const first = es.allEpisodes().map((e) => e.seed);
    es.reset();
    expect(es.allEpisodes().map((e) => e.seed)).toEqual(first);
    expect(first).toEqual([7, 8, 9]);
  });

  it('places tags in order with their own group counts', () => {
    const cfg = corridorConfig();
    cfg.custom_envs.Other = { ...cfg.custom_envs.Corridor, max_actions_per_traj: 2 };
    cfg.es_manager.train.env_configs = { tags: ['Corridor', 'Other'], n_groups: [1, 1] };
    const es = new EnvStateManager(cfg, 'train', opts);
    expect(es.entries.map((e) => [e.tag, e.groupId, e.maxActionsPerTraj])).toEqual([
      ['Corridor', 0, 4], ['Corridor', 0, 4], ['Corridor', 0, 4], ['Other', 1, 2], ['Other', 1, 2], ['Other', 1, 2],
    ]);
  });
});

describe('EnvStateManager steps', () => {
  it('applies actions in order and stops at the env being done', () => {
    const es = new EnvStateManager(corridorConfig(), 'train', opts);
    es.reset(); // seed 10: corridor of length 3
    const out = es.step(0, say('Right || Right || Right || Left'));
    expect(out.executedActions).toEqual(['Right', 'Right', 'Right']);
    expect(out).toMatchObject({ envReward: 1, penalty: 0, reward: 1, done: true, endReason: 'env-done', observation: '___P' });
    expect(es.episode(0)).toMatchObject({ success: true, numActions: 3, done: true });
    expect(() => es.step(0, say('Left'))).toThrow(/done/);
  });

  it('spends the per-episode action budget across turns and ends the episode with it', () => {
    const es = new EnvStateManager(corridorConfig(['custom_envs.Corridor.max_actions_per_traj=3']), 'train', opts);
    es.reset();
    const first = es.step(0, say('Left || Left'));
    expect(first).toMatchObject({ actionsLeftBefore: 3, done: false });
    expect(es.actionsLeft(0)).toBe(1);
    const second = es.step(0, say('Right || Right || Right'));
    expect(second.executedActions).toEqual(['Right']);
    expect(second).toMatchObject({ done: true, endReason: 'action-budget' });
    expect(es.episode(0)).toMatchObject({ success: false, numActions: 3 });
  });

  it('ends the episode after max_turn turns', () => {
    const es = new EnvStateManager(corridorConfig(['agent_proxy.max_turn=2']), 'train', opts);
    es.reset();
    expect(es.step(0, say('Left')).done).toBe(false);
    expect(es.step(0, say('Left'))).toMatchObject({ done: true, endReason: 'max-turn', turn: 2 });
    expect(es.activeEnvIds()).not.toContain(0);
  });

  it('charges the format penalty for malformed replies, unknown actions and empty answers', () => {
    const es = new EnvStateManager(corridorConfig(['es_manager.format_penalty=-0.25']), 'train', opts);
    es.reset();
    const malformed = es.step(0, parseResponse('Right', { enableThink: true, actionSep: '||', maxActionsPerTurn: 5, actionNames: ['Left', 'Right'] }));
    expect(malformed).toMatchObject({ penalty: -0.25, reward: -0.25, executedActions: [] });
    const mixed = es.step(1, say('Right || Fly'));
    expect(mixed).toMatchObject({ penalty: -0.25, executedActions: ['Right'] });
    const clean = es.step(2, say('right'));
    expect(clean.penalty).toBe(0);
  });

  it('counts valid and effective actions', () => {
    const es = new EnvStateManager(corridorConfig(), 'train', opts);
    es.reset();
    es.step(0, say('Left || Jump || Right'));
    expect(es.episode(0)).toMatchObject({ actionsWritten: 3, actionsValid: 2, actionsEffective: 1, numActions: 2 });
  });

  it('applies only the first action per turn for single-step envs', () => {
    const es = new EnvStateManager(corridorConfig(), 'train', {
      resolveSpec: () => ({ ...resolveCorridor(), multiAction: false }),
    });
    es.reset();
    expect(es.step(0, say('Right || Right')).executedActions).toEqual(['Right']);
  });

  it('records the structured state after each turn', () => {
    const es = new EnvStateManager(corridorConfig(), 'train', opts);
    es.reset();
    expect(es.episode(0).initialState).toMatchObject({ kind: 'text', fields: { position: 0 } });
    expect(es.step(0, say('Right')).state).toMatchObject({ kind: 'text', fields: { position: 1 } });
  });
});

describe('EnvStateManager with the built-in registry', () => {
  it('builds FrozenLake groups whose members start from the same map', async () => {
    const { parseRunConfig } = await import('../../trainer-core/config');
    const cfg = parseRunConfig({
      es_manager: { train: { env_groups: 2, group_size: 3, env_configs: { tags: ['FrozenLake'], n_groups: [2] } } },
    });
    const es = new EnvStateManager(cfg, 'train');
    es.reset();
    const obs = es.allEpisodes().map((e) => e.initialObservation);
    expect(new Set(obs.slice(0, 3)).size).toBe(1);
    expect(new Set(obs.slice(3)).size).toBe(1);
    expect(es.entries[0].prompt.actionNames).toEqual(['Left', 'Down', 'Right', 'Up']);
  });
});
