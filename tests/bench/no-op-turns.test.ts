import { describe, expect, it } from 'vitest';
import { addNoOpTurns, emptyNoOpTurns, meanAdvantage, repeatShare } from '../../bench/lib/no-op-turns';

const turns = (boards: string, advantages: Array<number | null>) => [...boards].map((observation, k) => ({ observation, advantage: advantages[k] ?? null }));

describe('no-op turns of training episodes', () => {
  it('tells a move from a first no-op and from a no-op repeated right after one, with their advantages', () => {
    // a -> a (no-op) -> a (repeated) -> b (moved) -> b (no-op) -> c (moved); the last turn has no next board.
    const t = addNoOpTurns(emptyNoOpTurns(), turns('aaabbcd', [-1, -2, 0.5, -3, 1, 2, 9]), false);
    expect(t).toMatchObject({ episodes: 1, solved: 0, afterNoOp: 3 });
    expect(t.moved).toEqual({ turns: 3, advantageSum: 3.5, trained: 3 });
    expect(t.firstNoOp).toEqual({ turns: 2, advantageSum: -4, trained: 2 });
    expect(t.repeatedNoOp).toEqual({ turns: 1, advantageSum: -2, trained: 1 });
    expect(repeatShare(t)).toBeCloseTo(1 / 3);
  });

  it('counts the turns of an untrained episode but no advantage for them, and sums over episodes', () => {
    const t = emptyNoOpTurns();
    addNoOpTurns(t, turns('aab', [null, null]), false);
    addNoOpTurns(t, turns('ab', [4]), true);
    expect(t).toMatchObject({ episodes: 2, solved: 1 });
    expect(t.firstNoOp).toEqual({ turns: 1, advantageSum: 0, trained: 0 });
    expect(meanAdvantage(t.firstNoOp)).toBeNull();
    expect(meanAdvantage(t.moved)).toBe(4);
    expect(t.moved.turns).toBe(2);
    expect(repeatShare(emptyNoOpTurns())).toBe(0);
  });
});
