import { describe, expect, it } from 'vitest';
import { parseRoom, renderRoom, SokobanEnv, sokobanOptionsSchema, solveSokoban } from '../../trainer-core/envs/sokoban';

const make = (options: Record<string, unknown> = {}) => new SokobanEnv(sokobanOptionsSchema.parse(options));

describe('Sokoban options', () => {
  it("has RAGEN's defaults: 6x6, one box, 100 steps", () => {
    expect(sokobanOptionsSchema.parse({})).toEqual({ dim_room: [6, 6], num_boxes: 1, max_steps: 100, search_depth: 300, outer_wall: true });
  });

  it('takes dim_x and dim_y together as the room size', () => {
    const env = make({ dim_x: 7, dim_y: 9 });
    expect(env.reset(1).split('\n').map((l) => [...l].length)).toEqual(Array(7).fill(9));
    expect(() => make({ dim_x: 7 })).toThrow(/set both dim_x and dim_y/);
  });
});

describe('Sokoban rendering', () => {
  it('leaves out the ring of wall with outer_wall: false, and plays the same moves', () => {
    const whole = make();
    const inner = make({ outer_wall: false });
    const level = ['######', '#_O_X#', '#__P_#', '##___#', '######'];
    whole.loadLevel(level);
    expect(inner.loadLevel(level)).toBe('_O_X\n__P_\n#___');
    for (const move of ['Up', 'Left', 'Down', 'Right']) {
      const a = whole.step(move);
      const b = inner.step(move);
      expect({ ...b, observation: '' }).toEqual({ ...a, observation: '' });
      expect(b.observation).toBe(a.observation.split('\n').slice(1, -1).map((l) => l.slice(1, -1)).join('\n'));
    }
    // A drawn level with floor on its edge keeps its whole text: nothing can be left out.
    expect(inner.loadLevel(['#######', '_P_X_O#', '#######'])).toBe('#######\n_P_X_O#\n#######');
    expect(make({ outer_wall: false }).reset(7).split('\n').map((l) => [...l].length)).toEqual([4, 4, 4, 4]);
  });

  it("uses RAGEN's symbols: # wall, _ floor, O target, X box, √ box on target, P player, S player on target", () => {
    const level = ['#######', '#_O_X_#', '#_√_P_#', '#######'];
    const env = make();
    expect(env.loadLevel(level)).toBe(level.join('\n'));
    env.step('Left'); // P moves onto floor; nothing else changes
    env.loadLevel(['######', '#SX__#', '#_√__#', '######']);
    expect(env.render()).toBe('######\n#SX__#\n#_√__#\n######');
    expect(env.renderState()).toEqual({
      kind: 'grid',
      rows: [
        ['wall', 'wall', 'wall', 'wall', 'wall', 'wall'],
        ['wall', 'target', 'floor', 'floor', 'floor', 'wall'],
        ['wall', 'floor', 'target', 'floor', 'floor', 'wall'],
        ['wall', 'wall', 'wall', 'wall', 'wall', 'wall'],
      ],
      player: [1, 1],
      boxes: [
        [1, 2],
        [2, 2],
      ],
      targets: [
        [1, 1],
        [2, 2],
      ],
      status: 'playing',
    });
  });

  it('round-trips any generated room through its text', () => {
    const env = make();
    for (let seed = 0; seed < 20; seed++) {
      const text = env.reset(seed);
      expect(renderRoom(parseRoom(text.split('\n')))).toBe(text);
    }
  });

  it('lists legend and actions in RAGEN order', () => {
    const env = make();
    expect(env.actionNames()).toEqual(['Up', 'Down', 'Left', 'Right']);
    expect(env.legend()).toBe('#: wall\n_: floor\nO: target\nX: box\n√: box on target\nP: player\nS: player on target');
  });
});

describe('Sokoban rules and rewards (gym-sokoban)', () => {
  it('costs 0.1 a step, pays +1 for a box onto a target and +10 when solved', () => {
    const env = make();
    env.loadLevel(['#######', '#P_X_O#', '#######']);
    expect(env.step('Right')).toMatchObject({ reward: -0.1, done: false, info: { actionIsEffective: true, success: false } });
    const push = env.step('Right');
    expect(push.observation).toBe('#######\n#__PXO#\n#######');
    expect(push.reward).toBeCloseTo(-0.1);
    const solved = env.step('Right');
    expect(solved.observation).toBe('#######\n#___P√#\n#######');
    expect(solved.reward).toBeCloseTo(-0.1 + 1 + 10);
    expect(solved).toMatchObject({ done: true, info: { success: true, boxesOnTarget: 1 } });
    expect(env.renderState()).toMatchObject({ status: 'solved' });
  });

  it('charges -1 when a box leaves its target', () => {
    const env = make();
    env.loadLevel(['########', '#P√__O_#', '#__X___#', '########']);
    const off = env.step('Right');
    expect(off.observation).toBe('########\n#_SX_O_#\n#__X___#\n########');
    expect(off.reward).toBeCloseTo(-1.1);
  });

  it('cannot push a box into a wall or another box, and walls stop the player', () => {
    const env = make();
    env.loadLevel(['######', '#PXX_#', '#_O_O#', '######']);
    expect(env.step('Right')).toMatchObject({ info: { actionIsEffective: false } });
    expect(env.step('Up')).toMatchObject({ reward: -0.1, info: { actionIsValid: true, actionIsEffective: false } });
    expect(env.render()).toBe('######\n#PXX_#\n#_O_O#\n######');
  });

  it('ignores invalid action text without spending a step', () => {
    const env = make({ max_steps: 1 });
    env.loadLevel(['#####', '#PXO#', '#####']);
    expect(env.step('push')).toMatchObject({ reward: 0, done: false, info: { actionIsValid: false, actionIsEffective: false } });
    expect(env.step('right')).toMatchObject({ done: true, info: { success: true } });
  });

  it('ends the episode after max_steps moves', () => {
    const env = make({ max_steps: 2 });
    env.loadLevel(['#######', '#P_X_O#', '#######']);
    expect(env.step('Left').done).toBe(false);
    expect(env.step('Left')).toMatchObject({ done: true, info: { success: false } });
    expect(env.solve()).toBeNull();
  });

  it('replays the same room and moves for the same seed', () => {
    const env = make();
    const episode = () => [env.reset(9), ...['Up', 'Left', 'Down', 'Right'].map((a) => env.step(a).observation)];
    expect(episode()).toEqual(episode());
  });
});

describe('Sokoban generation and solver', () => {
  it('solves 200 generated default rooms; replaying each solution through step succeeds', () => {
    const env = make();
    const rooms = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      rooms.add(env.reset(seed));
      const text = env.render();
      expect(text.match(/X|√/g)?.length).toBe(1);
      // Reverse play always moves the box off its target.
      expect(text).not.toContain('√');
      const path = env.solve();
      expect(path, `seed ${seed}:\n${text}`).not.toBeNull();
      let last;
      for (const action of path!) last = env.step(action);
      expect(last?.done).toBe(true);
      expect(last?.info.success).toBe(true);
    }
    expect(rooms.size).toBeGreaterThan(150);
  });

  it('generates solvable larger rooms with two boxes', () => {
    const env = make({ dim_room: [8, 8], num_boxes: 2 });
    for (let seed = 0; seed < 10; seed++) {
      env.reset(seed);
      const path = env.solve();
      expect(path).not.toBeNull();
      let last;
      for (const action of path!) last = env.step(action);
      expect(last?.info.success).toBe(true);
    }
  });

  it('finds shortest solutions and reports unsolvable rooms as null', () => {
    expect(solveSokoban(parseRoom(['#######', '#P_X_O#', '#######']))).toEqual(['Right', 'Right', 'Right']);
    expect(solveSokoban(parseRoom(['######', '#X__O#', '#P___#', '######']))).toBeNull();
    const env = make();
    env.loadLevel(['#######', '#P_X_O#', '#######']);
    expect(env.optimalSuccessProbability(3)).toBe(1);
    expect(env.optimalSuccessProbability(2)).toBe(0);
  });
});
