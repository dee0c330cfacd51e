import { describe, expect, it } from 'vitest';
import { episodesByGroup, groupEpisodes, groupMember } from '../../renderer/src/replay/group';
import { clampTurn, stepperCommand } from '../../renderer/src/replay/keys';
import { evaluationReplayLocation, NO_FILTERS, readReplayQuery, replayLocation, replayQuery } from '../../renderer/src/replay/route';
import { isGridState, stateText, tileLayout, type GridState } from '../../renderer/src/replay/state';
import type { EpisodeDto, TurnDto } from '../../preload/contract';
import { createEnv, frozenLakeSpec, sokobanSpec } from '../../trainer-core/envs';

describe('grid states', () => {
  it('lays out a real FrozenLake state with the player, holes and the goal', () => {
    const env = createEnv(frozenLakeSpec as never, { is_slippery: false });
    env.reset(3);
    const state = JSON.parse(JSON.stringify(env.renderState())) as unknown;
    expect(isGridState(state)).toBe(true);
    const layout = tileLayout(state as GridState);
    expect([layout.rows, layout.cols, layout.tiles.length]).toEqual([4, 4, 16]);
    expect(layout.tiles.filter((t) => t.player)).toHaveLength(1);
    expect(layout.tiles.some((t) => t.terrain === 'goal')).toBe(true);
    expect(layout.status).toBe('playing');
  });

  it('lays out a real Sokoban state with boxes on their cells and targets marked', () => {
    const env = createEnv(sokobanSpec as never);
    env.reset(11);
    const state = env.renderState() as GridState;
    expect(isGridState(state)).toBe(true);
    const layout = tileLayout(state);
    expect(layout.tiles.filter((t) => t.box)).toHaveLength(state.boxes.length);
    expect(layout.tiles.filter((t) => t.target).length).toBeGreaterThanOrEqual(state.targets.length);
    expect(layout.tiles.some((t) => t.terrain === 'wall')).toBe(true);
  });

  it('refuses malformed grids and shows text states as text', () => {
    expect(isGridState({ kind: 'grid', rows: [['lava']], player: null, boxes: [], targets: [] })).toBe(false);
    expect(isGridState({ grid: ['FH'], player: [0, 0] })).toBe(false);
    expect(stateText({ kind: 'text', text: 'target 24, numbers 3 5 8' })).toBe('target 24, numbers 3 5 8');
    expect(stateText({ a: 1 })).toContain('"a": 1');
    expect(stateText(null)).toBe('');
  });
});

describe('stepper keys', () => {
  it('maps arrows and space, and ignores keys typed into form fields or with modifiers', () => {
    expect(stepperCommand('ArrowLeft', 'BODY')).toBe('previous');
    expect(stepperCommand('ArrowRight', 'DIV')).toBe('next');
    expect(stepperCommand(' ', 'BODY')).toBe('toggle-play');
    expect(stepperCommand('ArrowRight', 'SELECT')).toBeNull();
    expect(stepperCommand('ArrowRight', 'BODY', true)).toBeNull();
    expect(stepperCommand('a', 'BODY')).toBeNull();
  });

  it('keeps the turn within the episode', () => {
    expect(clampTurn(-1, 3)).toBe(0);
    expect(clampTurn(5, 3)).toBe(2);
    expect(clampTurn(1, 0)).toBe(0);
  });
});

describe('replay route query', () => {
  it('round-trips iteration, episode and turn, and drops junk', () => {
    const plain = { filters: NO_FILTERS, showGroup: false };
    expect(readReplayQuery(replayQuery({ iteration: 0, episode: 41, turn: 2 }))).toEqual({ iteration: 0, episode: 41, turn: 2, evaluation: null, ...plain });
    expect(readReplayQuery({ iteration: 'x', episode: '-3' })).toEqual({ iteration: null, episode: null, turn: 0, evaluation: null, ...plain });
    expect(readReplayQuery(replayQuery({ evaluation: 5, episode: 9 }))).toEqual({ iteration: null, episode: 9, turn: 0, evaluation: 5, ...plain });
    // The list's filters and the group view travel in the address too; what no filter can be is none.
    const filtered = { split: 'val', outcome: 'failure', group: '3', tag: 'SimpleSokoban' } as const;
    expect(replayQuery({ iteration: 4, filters: filtered, showGroup: true })).toEqual({ iteration: '4', split: 'val', outcome: 'failure', group: '3', tag: 'SimpleSokoban', view: 'group' });
    expect(readReplayQuery(replayQuery({ iteration: 4, filters: filtered, showGroup: true }))).toMatchObject({ filters: filtered, showGroup: true });
    expect(readReplayQuery({ split: 'test', outcome: 'won', group: 'x', view: 'list' })).toMatchObject(plain);
    expect(evaluationReplayLocation(7, 5)).toEqual({ path: '/runs/7/replay', query: { evaluation: '5' } });
    expect(replayLocation(7, 3)).toEqual({ path: '/runs/7/replay', query: { iteration: '3' } });
  });
});

describe('group view figures', () => {
  const episode = (id: number, groupId: number, envIndex: number, split: 'train' | 'val' = 'train'): EpisodeDto => ({
    id, runId: 1, iteration: 1, split, envTag: 'Lake', groupId, envIndex, seed: 5, totalReward: 1, success: true,
    numTurns: 2, numActions: 2, truncated: false, filteredOut: false,
  });
  const turn = (advantageMean: number | null, numTokens: number) => ({ advantageMean, numTokens }) as TurnDto;

  it('picks one group of one split in env order', () => {
    const all = [episode(3, 1, 3), episode(1, 0, 1), episode(2, 1, 2), episode(4, 1, 0, 'val')];
    expect(groupEpisodes(all, 'train', 1).map((e) => e.id)).toEqual([2, 3]);
  });

  it('averages stored advantages and sums tokens', () => {
    expect(groupMember(episode(1, 0, 0), [turn(0.5, 10), turn(-0.25, 4)])).toMatchObject({ advantage: 0.125, tokens: 14 });
    expect(groupMember(episode(1, 0, 0), [turn(null, 3)]).advantage).toBeNull();
  });

  it('keeps each turn\'s board and actions, then the board after the last action', () => {
    const turns = [
      { ...turn(null, 3), state: 'before 1', actions: ['Right', 'Jump'], numValidActions: 1 },
      { ...turn(null, 3), state: 'before 2', actions: ['Down'], numValidActions: 1 },
    ] as TurnDto[];
    const member = groupMember(episode(1, 0, 0), turns, 'after 2');
    expect(member.steps).toEqual([
      { state: 'before 1', actions: ['Right', 'Jump'], numValidActions: 1 },
      { state: 'before 2', actions: ['Down'], numValidActions: 1 },
    ]);
    expect(member.finalState).toBe('after 2');
    expect(groupMember(episode(1, 0, 0), turns).finalState).toBeNull();
  });

  it('lists episodes by group: train before val, groups ascending, successes counted', () => {
    const all = [episode(4, 1, 0, 'val'), episode(3, 1, 3), episode(1, 0, 1), { ...episode(2, 1, 2), success: false }];
    expect(episodesByGroup(all).map((g) => [g.key, g.episodes.map((e) => e.id), g.successes])).toEqual([
      ['train/0', [1], 1],
      ['train/1', [2, 3], 1],
      ['val/1', [4], 1],
    ]);
  });
});
