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
});
