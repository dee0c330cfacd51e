import { describe, expect, it } from 'vitest';
import { lakeMoveStats } from '../../bench/lib/lake-moves';

describe('lakeMoveStats', () => {
  it("values a move by the optimal policy's success after it, against the mean over the four moves", () => {
    // With one move left from the top-left of P G / _ _: Right, Down and Up each reach the goal
    // by one of their three slips (1/3), Left by none (0), so the mean is 1/4.
    const right = lakeMoveStats([{ observation: 'PG\n__', move: 'Right', movesLeft: 1 }]);
    expect(right).toMatchObject({ moves: 1, aimAtHole: 0, towardGoal: 1, byMove: { Right: 1 } });
    expect(right.moveValue).toBeCloseTo(1 / 3 - 1 / 4, 9);
    expect(right.bestMoveValue).toBeCloseTo(1 / 3 - 1 / 4, 9);
    const left = lakeMoveStats([{ observation: 'PG\n__', move: 'Left', movesLeft: 1 }]);
    expect(left.moveValue).toBeCloseTo(-1 / 4, 9);
    expect(left.towardGoal).toBe(0);
  });

  it('counts moves aimed at a hole and skips turns that name no move or have no player on the board', () => {
    const s = lakeMoveStats([
      { observation: 'PO\nG_', move: 'Right', movesLeft: 5 },
      { observation: 'PO\nG_', move: 'Down', movesLeft: 5 },
      { observation: 'PO\nG_', move: 'Jump', movesLeft: 5 },
      { observation: '_X\nG_', move: 'Down', movesLeft: 5 },
    ]);
    expect(s).toMatchObject({ moves: 2, aimAtHole: 0.5, towardGoal: 0.5 });
  });

  it('splits the turns where a goal-ward move is a hole into forks and blocked turns, with their advantages', () => {
    // P O _ / _ _ _ / _ _ G: Right aims at the goal and into a hole, Down at the goal safely (a fork).
    const fork = 'PO_\n___\n__G';
    // P O G / ...: the only goal-ward move, Right, is a hole (blocked).
    const blocked = 'POG\n___\n___';
    const s = lakeMoveStats([
      { observation: fork, move: 'Right', movesLeft: 5, advantage: -1 },
      { observation: fork, move: 'Down', movesLeft: 5, advantage: 0.5 },
      { observation: fork, move: 'Left', movesLeft: 5, advantage: 0.1 },
      { observation: blocked, move: 'Right', movesLeft: 5 },
      { observation: 'P__\n___\n__G', move: 'Right', movesLeft: 5, advantage: 3 },
    ]);
    expect(s.fork).toEqual({ turns: 3, intoHole: 1 / 3, uniformIntoHole: 0.25, holeAdvantage: -1, otherAdvantage: expect.closeTo(0.3, 9) });
    expect(s.blocked).toEqual({ turns: 1, intoHole: 1, uniformIntoHole: 0.25, holeAdvantage: null, otherAdvantage: null });
  });
});
