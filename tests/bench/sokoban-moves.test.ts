import { describe, expect, it } from 'vitest';
import { sokobanMoveStats } from '../../bench/lib/sokoban-moves';

// Boards as the compact template shows them, without the ring of wall: a cell off the board
// blocks like a wall.
const PUSH_ONTO_TARGET = 'PXO\n___\n___';
const BESIDE_A_BOX = 'O__\nPX_\n___';

describe('sokobanMoveStats', () => {
  it('tells a move on a shortest solution from one into the edge, and averages the advantages of each kind', () => {
    const s = sokobanMoveStats([
      { observation: PUSH_ONTO_TARGET, move: 'Right', advantage: 2 },
      { observation: PUSH_ONTO_TARGET, move: 'Up', advantage: -1 },
      { observation: PUSH_ONTO_TARGET, move: 'Down', advantage: null },
      { observation: PUSH_ONTO_TARGET, move: 'Wait', advantage: 5 },
    ]);
    expect(s).toMatchObject({ moves: 3, shortestPath: 1 / 3, ineffective: 1 / 3, wedges: 0, advantageShortest: 2, advantageOther: -1 });
    // Only Right is on a shortest path from this board: a move at random finds it one time in four.
    expect(s.shortestPathAtRandom).toBeCloseTo(1 / 4, 9);
    expect(s.byMove).toEqual({ Right: 1, Up: 1, Down: 1 });
  });

  it('counts a push that leaves the room unsolvable as wedging the box', () => {
    // The box pushed against the right edge can only slide up and down it, away from the target.
    const s = sokobanMoveStats([{ observation: BESIDE_A_BOX, move: 'Right', advantage: null }]);
    expect(s).toMatchObject({ moves: 1, wedges: 1, shortestPath: 0, ineffective: 0, advantageShortest: null, advantageOther: null });
  });
});
