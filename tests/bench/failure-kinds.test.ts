import { describe, expect, it } from 'vitest';
import { failureKinds, fatalAction } from '../../bench/lib/failure-kinds';

const episode = (success: boolean, observations: string[]) => ({ success, observations });

describe('failureKinds', () => {
  it('counts the solvable failures that were stuck, revisited a board, or kept moving', () => {
    const k = failureKinds(
      [
        episode(true, ['a', 'b', 'c']),
        // Stuck: a move into a wall, played three more times.
        episode(false, ['a', 'b', 'b', 'b', 'b']),
        // A walk there and back: a revisit, never unchanged.
        episode(false, ['a', 'b', 'a', 'b']),
        // Kept moving to new boards and ran out.
        episode(false, ['a', 'b', 'c', 'd']),
        // Unsolvable within the budget: not counted as a failure that could have been a success.
        episode(false, ['a', 'a', 'a', 'a']),
        episode(true, ['a', 'a', 'b']),
      ],
      [2, 4, 3, 9, null, 2],
    );
    expect(k.solved).toBe(2);
    expect(k.solvable).toBe(5);
    expect(k.solvableFailed).toBe(3);
    expect(k.stuck).toBe(1);
    expect(k.revisited).toBe(2);
    expect(k.unchangedTurns).toBe(3);
    expect(k.failedTurns).toBe(13);
    expect(k.solvedUnchangedTurns).toBe(1);
    expect(k.solvedTurns).toBe(6);
    expect([...k.failedBySolutionLength.entries()].sort()).toEqual([[3, 1], [4, 1], [9, 1]]);
    expect(() => failureKinds([episode(true, ['a'])], [])).toThrow(/1 episodes but 0 solution lengths/);
  });
});

describe('fatalAction', () => {
  const a = (changed: boolean, distanceAfter: number | null) => ({ changed, distanceAfter });

  it('finds the action after which the budget could no longer finish the room', () => {
    // 4 actions, the goal 3 away: a move towards it, a no-op that uses the only spare action,
    // then a move away that cannot be made up.
    expect(fatalAction([a(true, 2), a(false, 2), a(true, 3)], 4)).toEqual({ index: 2, kind: 'move', noOpsBefore: 1 });
    // The no-op itself loses the room when there was no spare action.
    expect(fatalAction([a(true, 2), a(false, 2)], 3)).toEqual({ index: 1, kind: 'no-op', noOpsBefore: 0 });
    // A push into a corner: the solver finds no way on.
    expect(fatalAction([a(true, null)], 10)).toEqual({ index: 0, kind: 'move', noOpsBefore: 0 });
  });

  it('is null when the room was never lost by the actions played', () => {
    expect(fatalAction([a(true, 2), a(true, 1)], 10)).toBeNull();
    expect(fatalAction([], 10)).toBeNull();
  });
});
