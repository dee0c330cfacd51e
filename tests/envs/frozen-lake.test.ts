import { describe, expect, it } from 'vitest';
import { Rng } from '../../trainer-core/rng';
import {
  FrozenLakeEnv,
  frozenLakeOptionsSchema,
  generateLakeMap,
  hasPath,
  lakeMove,
  lakeSuccessProbability,
  slipDirections,
} from '../../trainer-core/envs/frozen-lake';

const make = (options: Record<string, unknown> = {}) => new FrozenLakeEnv(frozenLakeOptionsSchema.parse(options));

describe('FrozenLake options', () => {
  it("has RAGEN's defaults", () => {
    expect(frozenLakeOptionsSchema.parse({})).toEqual({ size: 4, p: 0.8, is_slippery: true, random_start: true, random_goal: true });
  });
});

describe('FrozenLake rendering', () => {
  it("draws the map with RAGEN's symbols: P player, _ frozen, O hole, G goal", () => {
    const env = make();
    expect(env.loadMap(['SFFF', 'FHFH', 'FFFH', 'HFFG'])).toBe('P___\n_O_O\n___O\nO__G');
  });

  it('marks the player in a hole with X and on the goal with √', () => {
    const env = make({ is_slippery: false });
    env.loadMap(['SH', 'FG']);
    const fell = env.step('Right');
    expect(fell.observation).toBe('_X\n_G');
    expect(fell).toMatchObject({ reward: 0, done: true, info: { success: false, actionIsValid: true, actionIsEffective: true } });
    expect(env.renderState()).toMatchObject({ kind: 'grid', player: [0, 1], status: 'fell' });

    env.loadMap(['SH', 'FG']);
    env.step('down');
    const won = env.step('RIGHT');
    expect(won.observation).toBe('_O\n_√');
    expect(won).toMatchObject({ reward: 1, done: true, info: { success: true } });
    expect(env.renderState()).toEqual({
      kind: 'grid',
      rows: [
        ['start', 'hole'],
        ['frozen', 'goal'],
      ],
      player: [1, 1],
      boxes: [],
      targets: [],
      status: 'reached-goal',
    });
  });

  it('lists legend and actions in gym order', () => {
    const env = make();
    expect(env.actionNames()).toEqual(['Left', 'Down', 'Right', 'Up']);
    expect(env.legend()).toBe('P: player\n_: frozen\nO: hole\nG: goal\nX: player in hole\n√: player on goal');
  });
});

describe('FrozenLake steps', () => {
  it('ignores invalid action text and bumping into the edge changes nothing', () => {
    const env = make({ is_slippery: false });
    env.loadMap(['SF', 'FG']);
    expect(env.step('jump')).toMatchObject({ reward: 0, done: false, info: { actionIsValid: false, actionIsEffective: false } });
    expect(env.step('Up')).toMatchObject({ reward: 0, done: false, info: { actionIsValid: true, actionIsEffective: false } });
    expect(env.render()).toBe('P_\n_G');
  });

  it('generates a map per seed with a path from start to goal, the same for the same seed', () => {
    const env = make({ size: 6, p: 0.6 });
    for (let seed = 0; seed < 100; seed++) {
      const first = env.reset(seed);
      expect(env.reset(seed)).toBe(first);
      const map = generateLakeMap(6, 0.6, new Rng(seed), { randomStart: false, randomGoal: false });
      expect(hasPath(map, 0)).toBe(true);
      expect(map.tiles[0]).toBe('S');
      expect(map.tiles[35]).toBe('G');
    }
    expect(new Set(Array.from({ length: 20 }, (_, s) => env.reset(s))).size).toBeGreaterThan(10);
  });

  it("places start and goal on random squares by default, as RAGEN's generator does", () => {
    const starts = new Set<number>();
    const goals = new Set<number>();
    for (let seed = 0; seed < 200; seed++) {
      const map = generateLakeMap(4, 0.8, new Rng(seed));
      const start = map.tiles.indexOf('S');
      const goal = map.tiles.indexOf('G');
      expect(start).not.toBe(goal);
      expect(hasPath(map, start)).toBe(true);
      starts.add(start);
      goals.add(goal);
    }
    expect(starts.size).toBe(16);
    expect(goals.size).toBe(16);

    const anyStart = generateLakeMap(4, 0.8, new Rng(7), { randomStart: true, randomGoal: false });
    expect(anyStart.tiles[15]).toBe('G');
    const env = make({ is_slippery: false, random_start: false, random_goal: false });
    expect(env.reset(5).startsWith('P')).toBe(true);
    expect(env.reset(5).endsWith('G')).toBe(true);
  });

  it('puts the goal in one of the four corners with random_goal: corner, each corner in turn', () => {
    const goals = new Set<number>();
    for (let seed = 0; seed < 100; seed++) {
      const map = generateLakeMap(5, 0.8, new Rng(seed), { randomStart: true, randomGoal: 'corner' });
      const goal = map.tiles.indexOf('G');
      expect([0, 4, 20, 24]).toContain(goal);
      expect(hasPath(map, map.tiles.indexOf('S'))).toBe(true);
      goals.add(goal);
    }
    expect(goals.size).toBe(4);
    const board = make({ is_slippery: false, random_goal: 'corner' }).reset(3).split('\n');
    expect([board[0][0], board[0][3], board[3][0], board[3][3]]).toContain('G');
    expect(() => frozenLakeOptionsSchema.parse({ random_goal: 'corners' })).toThrow();
  });

  it('replays a slippery episode identically from the same seed', () => {
    const env = make({ size: 8 });
    const play = () => {
      const trace = [env.reset(42)];
      for (let i = 0; i < 30; i++) {
        const r = env.step(['Down', 'Right'][i % 2]);
        trace.push(`${r.observation}|${r.reward}|${r.done}|${r.info.actionTaken}`);
        if (r.done) break;
      }
      return trace;
    };
    expect(play()).toEqual(play());
  });
});

describe('FrozenLake slipping', () => {
  it('moves in the intended direction 1/3 of the time and each perpendicular 1/3 (30,000 steps over many seeds)', () => {
    // Three steps from the centre of an all-frozen 5x5 lake never reach the goal or leave it.
    const env = make({ size: 5, p: 1 });
    const counts = { intended: 0, Left: 0, Right: 0, other: 0 };
    const n = 30_000;
    for (let seed = 0; seed < n / 3; seed++) {
      env.loadMap(['FFFFF', 'FFFFF', 'FFSFF', 'FFFFF', 'FFFFG'], seed);
      for (const intended of ['Down', 'Up', 'Down']) {
        const result = env.step(intended);
        if (result.done) counts.other++;
        const taken = result.info.actionTaken as string;
        if (taken === intended) counts.intended++;
        else if (taken === 'Left' || taken === 'Right') counts[taken]++;
        else counts.other++;
      }
    }
    expect(counts.other).toBe(0);
    for (const c of [counts.intended, counts.Left, counts.Right]) expect(Math.abs(c / n - 1 / 3)).toBeLessThan(0.01);
  });

  it('slips 1/3 each within one long episode as well (30,000 steps)', () => {
    const env = make({ size: 9, p: 1 });
    env.loadMap(['FFFFFFFFF', 'FFFFFFFFF', 'FFFFFFFFF', 'FFFFFFFFF', 'FFFFSFFFF', 'FFFFFFFFF', 'FFFFFFFFF', 'FFFFFFFFF', 'FFFFFFFFG'], 7);
    const counts = { intended: 0, Left: 0, Right: 0, other: 0 };
    const n = 30_000;
    for (let i = 0; i < n; i++) {
      // Steer vertically around row 4: slips only move sideways, so the goal row is never reached.
      const state = env.renderState();
      const row = state.kind === 'grid' ? state.player![0] : 0;
      const intended = row < 4 ? 'Down' : 'Up';
      const result = env.step(intended);
      if (result.done) counts.other++;
      const taken = result.info.actionTaken as string;
      if (taken === intended) counts.intended++;
      else if (taken === 'Left' || taken === 'Right') counts[taken]++;
      else counts.other++;
    }
    expect(counts.other).toBe(0);
    for (const c of [counts.intended, counts.Left, counts.Right]) expect(Math.abs(c / n - 1 / 3)).toBeLessThan(0.01);
  });

  it('slips only to the perpendicular directions', () => {
    expect(slipDirections(1)).toEqual([0, 1, 2]);
    expect(slipDirections(0)).toEqual([3, 0, 1]);
  });
});

describe('FrozenLake solvers', () => {
  it('solves 200 non-slippery maps with the shortest path, and replaying it succeeds', () => {
    const env = make({ is_slippery: false });
    for (let seed = 0; seed < 200; seed++) {
      const board = env.reset(seed).replace(/\n/g, '');
      const [player, goal] = [board.indexOf('P'), board.indexOf('G')];
      const manhattan = Math.abs((player >> 2) - (goal >> 2)) + Math.abs((player % 4) - (goal % 4));
      const path = env.solve();
      expect(path).not.toBeNull();
      let last;
      for (const action of path!) last = env.step(action);
      expect(last?.done).toBe(true);
      expect(last?.info.success).toBe(true);
      // Shortest: no path can be shorter than the Manhattan distance from start to goal.
      expect(path!.length).toBeGreaterThanOrEqual(manhattan);
      expect(env.optimalSuccessProbability(path!.length)).toBe(1);
      env.reset(seed);
      expect(env.optimalSuccessProbability(path!.length - 1)).toBe(0);
    }
  });

  it('returns no fixed sequence on slippery ice but the optimal success probability', () => {
    const env = make();
    env.loadMap(['SF', 'FG']);
    expect(env.solve()).toBeNull();
    // Hand computation: one step cannot reach G; with two, the best first move reaches a cell
    // next to G with probability 2/3, and from there 1/3 slips onto G.
    expect(env.optimalSuccessProbability(1)).toBe(0);
    expect(env.optimalSuccessProbability(2)).toBeCloseTo(2 / 9, 12);
    const probabilities = [1, 2, 5, 10, 50].map((b) => env.optimalSuccessProbability(b));
    for (let i = 1; i < probabilities.length; i++) expect(probabilities[i]).toBeGreaterThanOrEqual(probabilities[i - 1]);
    expect(probabilities.at(-1)!).toBeGreaterThan(0.99);
  });

  it('value iteration matches the non-slippery shortest path length', () => {
    const map = { size: 3, tiles: ['S', 'H', 'F', 'F', 'H', 'F', 'F', 'F', 'G'] as ('S' | 'F' | 'H' | 'G')[] };
    expect(lakeSuccessProbability(map, 0, false, 3)).toBe(0);
    expect(lakeSuccessProbability(map, 0, false, 4)).toBe(1);
    expect(lakeMove(3, 0, 0)).toBe(0);
  });
});
