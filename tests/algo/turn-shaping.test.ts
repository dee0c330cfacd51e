import { describe, expect, it } from 'vitest';
import { computeGrpo } from '../../trainer-core/algo/grpo';
import { discountedReturn, distancePotential, turnShapingBonuses, type TurnShaping } from '../../trainer-core/algo/turn-shaping';
import { expectAllClose, f32 } from './helpers';

describe('turnShapingBonuses', () => {
  it('gives coef * (gamma * phi(next) - phi(now)) per turn, with phi = 0 after the last turn', () => {
    // phi: -3 (turn 1 played from 3 moves away), -2, -2, and -1 after the last turn, which the
    // absorbing end reads as 0; worked by hand:
    // 0.5 * (0.9 * -2 + 3) = 0.6, 0.5 * (0.9 * -2 + 2) = 0.1, 0.5 * (0 + 2) = 1
    const bonuses = turnShapingBonuses([-3, -2, -2, -1], { coef: 0.5, gamma: 0.9 });
    expect(bonuses).toHaveLength(3);
    expect(bonuses[0]).toBeCloseTo(0.6, 12);
    expect(bonuses[1]).toBeCloseTo(0.1, 12);
    expect(bonuses[2]).toBeCloseTo(1, 12);
    expect(turnShapingBonuses([-2], { coef: 1, gamma: 1 })).toEqual([]);
    expect(turnShapingBonuses([-4, -1, 0], { coef: 0, gamma: 1 })).toEqual([0, 0]);
  });

  it('lets the last state keep its potential with end: bootstrap', () => {
    // the last turn: 0.5 * (0.9 * -1 + 2) = 0.55
    const bonuses = turnShapingBonuses([-3, -2, -2, -1], { coef: 0.5, gamma: 0.9, end: 'bootstrap' });
    expect(bonuses[0]).toBeCloseTo(0.6, 12);
    expect(bonuses[2]).toBeCloseTo(0.55, 12);
  });

  it('refuses a discount outside [0, 1] and a missing final potential', () => {
    expect(() => turnShapingBonuses([-1, 0], { coef: 1, gamma: 1.5 })).toThrow(/turn_shaping.gamma must lie in \[0, 1\]/);
    expect(() => turnShapingBonuses([], { coef: 1, gamma: 1 })).toThrow(/state after the last turn/);
  });
});

describe('distancePotential', () => {
  it('is minus the distance, capped at the unreachable distance', () => {
    expect(distancePotential(3, 11)).toBe(-3);
    expect(distancePotential(0, 11)).toBe(-0);
    expect(distancePotential(null, 11)).toBe(-11);
    expect(distancePotential(40, 11)).toBe(-11);
  });
});

/**
 * A corridor of cells 0..3, the goal at 3 (reward 1, ends), a hole left of 0 (ends, reward 0),
 * four moves. Deterministic, so every open-loop move sequence is a policy from the start cell.
 */
function play(start: number, moves: readonly number[]): { rewards: number[]; potentials: number[] } {
  const rewards: number[] = [];
  const potentials: number[] = [];
  let cell = start;
  const phi = () => (cell < 0 ? distancePotential(null, 5) : distancePotential(3 - cell, 5));
  for (const move of moves) {
    potentials.push(phi());
    cell += move;
    if (cell < 0 || cell === 3) {
      rewards.push(cell === 3 ? 1 : 0);
      break;
    }
    rewards.push(0);
  }
  potentials.push(phi());
  return { rewards, potentials };
}

function allSequences(length: number): number[][] {
  if (length === 0) return [[]];
  return allSequences(length - 1).flatMap((s) => [
    [...s, -1],
    [...s, 1],
  ]);
}

describe('potential-based shaping on a tiny corridor', () => {
  const gamma = 0.9;
  const coef = 0.7;
  const start = 1;
  const policies = allSequences(4).map((moves) => {
    const { rewards, potentials } = play(start, moves);
    const bonuses = turnShapingBonuses(potentials, { coef, gamma });
    return {
      moves: moves.join(','),
      plain: discountedReturn(rewards, gamma),
      shaped: discountedReturn(
        rewards.map((r, t) => r + bonuses[t]),
        gamma,
      ),
      bonuses,
    };
  });

  it('moves every discounted return by the same constant, -coef * phi(start)', () => {
    for (const p of policies) expect(p.shaped - p.plain).toBeCloseTo(coef * (3 - start), 12);
    // ...while the turns themselves are rewarded differently: a step towards the goal earns, a step back pays.
    expect(policies.find((p) => p.moves === '1,1,1,1')!.bonuses[0]).toBeGreaterThan(0);
    expect(policies.find((p) => p.moves === '-1,1,1,1')!.bonuses[0]).toBeLessThan(0);
  });

  it('leaves the ranking of the policies, and so the optimal ones, unchanged', () => {
    // Rounded to 1e-9 so that float noise does not break the ties between equal returns.
    const rank = (key: 'plain' | 'shaped') =>
      [...policies].sort((a, b) => Math.round((b[key] - a[key]) * 1e9) || a.moves.localeCompare(b.moves)).map((p) => p.moves);
    const byPlain = rank('plain');
    const byShaped = rank('shaped');
    expect(byShaped).toEqual(byPlain);
    const best = (key: 'plain' | 'shaped') => {
      const top = Math.max(...policies.map((p) => p[key]));
      return policies.filter((p) => Math.abs(p[key] - top) < 1e-9).map((p) => p.moves);
    };
    expect(best('shaped')).toEqual(best('plain'));
    expect(best('plain')).toEqual(['1,1,-1,-1', '1,1,-1,1', '1,1,1,-1', '1,1,1,1']);
  });
});

describe('what the shaping changes for a group-relative estimator', () => {
  // One group of three 3-turn episodes, one token a turn: A walks to the goal (reward 1 at the
  // end), B never moves, C moves once and stalls. phi before each turn, then after the last.
  const potentials = [
    [-3, -2, -1, 0],
    [-3, -3, -3, -3],
    [-3, -2, -2, -2],
  ];
  const envRewards = [
    [0, 0, 1],
    [0, 0, 0],
    [0, 0, 0],
  ];
  const grpo = (shaping: TurnShaping | null) => {
    const rewards = envRewards.flatMap((r, b) => {
      const bonus = shaping ? turnShapingBonuses(potentials[b], shaping) : [0, 0, 0];
      return r.map((x, t) => x + bonus[t]);
    });
    const batch = { rewards: f32(rewards), mask: f32(Array(9).fill(1)), rows: 3, cols: 3, groupIds: [0, 0, 0] };
    return computeGrpo(batch).advantages;
  };

  it('with an absorbing end moves every episode of a group alike, so GRPO sees nothing new', () => {
    expectAllClose(grpo({ coef: 0.5, gamma: 1 }), grpo(null));
  });

  it('with end: bootstrap ranks the stalled episode above the one that never moved', () => {
    const plain = grpo(null);
    const shaped = grpo({ coef: 0.5, gamma: 1, end: 'bootstrap' });
    expect(plain[3]).toBeCloseTo(plain[6], 6);
    expect(shaped[6]).toBeGreaterThan(shaped[3]);
  });
});
