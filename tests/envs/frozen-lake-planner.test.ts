import { describe, expect, it } from 'vitest';
import { FrozenLakeEnv, LakeTurnPlanner, lakeSuccessProbability, parseLakeMap } from '../../trainer-core/envs/frozen-lake';

const MAP = parseLakeMap(['SFFF', 'FHFH', 'FFFH', 'HFFG']);

describe('the FrozenLake turn planner', () => {
  it('with one move per turn and a turn per move, matches value iteration exactly', () => {
    for (const budget of [1, 3, 6, 10]) {
      const planner = new LakeTurnPlanner(MAP, true, 1);
      expect(planner.value(0, budget, budget)).toBeCloseTo(lakeSuccessProbability(MAP, 0, true, budget), 12);
    }
  });

  it('without feedback between moves does no better than with it, and better with more moves per turn', () => {
    const oneTurn = new LakeTurnPlanner(MAP, true, 5).value(0, 1, 5);
    const fiveTurns = new LakeTurnPlanner(MAP, true, 5).value(0, 5, 10);
    const everyMove = lakeSuccessProbability(MAP, 0, true, 10);
    expect(oneTurn).toBeLessThan(fiveTurns);
    expect(fiveTurns).toBeLessThanOrEqual(everyMove + 1e-12);
    expect(new LakeTurnPlanner(MAP, true, 1).value(0, 5, 10)).toBeLessThan(fiveTurns);
  });

  it('on ice that does not slip, plans the shortest path in one turn', () => {
    const plan = new LakeTurnPlanner(MAP, false, 6).plan(0, 1, 6);
    expect(plan.success).toBe(1);
    expect(plan.actions).toHaveLength(6);
  });

  it("is the slippery env's plan for the turn, replayed to the planner's success rate", () => {
    let reached = 0;
    const episodes = 600;
    let predicted = 0;
    const env = new FrozenLakeEnv({ size: 4, p: 0.8, is_slippery: true, random_start: false, random_goal: false });
    for (let seed = 0; seed < episodes; seed++) {
      env.loadMap(['SFFF', 'FHFH', 'FFFH', 'HFFG'], seed);
      if (seed === 0) predicted = new LakeTurnPlanner(MAP, true, 5).value(0, 5, 10);
      let actionsLeft = 10;
      let done = false;
      for (let turn = 5; turn >= 1 && !done && actionsLeft > 0; turn--) {
        const plan = env.planTurn({ turnsLeft: turn, actionsLeft, maxActionsPerTurn: 5 }) ?? [];
        for (const action of plan) {
          const step = env.step(action);
          actionsLeft--;
          if (step.done) {
            done = true;
            if (step.info.success) reached++;
            break;
          }
        }
      }
    }
    // 600 episodes: a standard error of about 0.02.
    expect(Math.abs(reached / episodes - predicted)).toBeLessThan(0.07);
  });
});
