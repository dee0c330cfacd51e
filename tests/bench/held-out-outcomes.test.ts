import { describe, expect, it } from 'vitest';
import { groupReach, outcomeFlips } from '../../bench/lib/held-out-outcomes';

const b = (s: string) => [...s].map((c) => c === '1');

describe('per-episode outcomes on shared held-out start states', () => {
  it('counts the evaluation failures that some sample of the group solves', () => {
    // Episodes 0 and 1 are solved at evaluation; 2 is failed and solved by two samples, 3 by one, 4 by none.
    const r = groupReach(b('11000'), [b('10100'), b('01110'), b('11000')]);
    expect(r.failed).toBe(3);
    expect(r.failedReached).toBe(2);
    expect(r.failedBySolvedSamples).toEqual([1, 1, 1, 0]);
    expect(r.passAtG).toBeCloseTo(4 / 5, 12);
    expect(r.sampleSuccess).toBeCloseTo(7 / 15, 12);
  });

  it('refuses samples of another length', () => {
    expect(() => groupReach(b('10'), [b('1')])).toThrow(/1 episodes, the evaluation 2/);
  });

  it('separates gains kept to the end from gains undone by a later checkpoint', () => {
    // Warm start solves 0; checkpoint 1 gains 1 and 2, loses 0; checkpoint 2 loses 1 again and gains 3.
    const r = outcomeFlips([b('1000'), b('0110'), b('0011')]);
    expect(r.steps).toEqual([
      { to: 1, success: 0.5, gained: 2, lost: 1, gainedKept: 1 },
      { to: 2, success: 0.5, gained: 1, lost: 1, gainedKept: 1 },
    ]);
    expect(r.netGained).toBe(2);
    expect(r.netLost).toBe(1);
    expect(r.churn).toBe(5);
  });
});
