import { describe, expect, it } from 'vitest';
import { groupSignal, type GroupEpisode } from '../../bench/lib/group-signal';

const group = (iteration: number, groupId: number, outcomes: Array<[boolean, number]>): GroupEpisode[] =>
  outcomes.map(([success, reward]) => ({ iteration, groupId, success, reward }));

// Ten steps at -0.1 summed in order: -0.9999999999999999, not -1.
const tenSteps = Array<number>(10).fill(-0.1).reduce((a, b) => a + b);

describe('groupSignal', () => {
  it('counts groups without reward variance and failing rooms solved within their group', () => {
    const s = groupSignal([
      ...group(1, 0, [[true, 10], [true, 10], [true, 10], [true, 10]]), // all solved alike: no signal
      ...group(1, 1, [[false, -1], [false, tenSteps], [false, -1], [false, -1]]), // all failed alike (to float rounding): no signal
      ...group(1, 2, [[false, -1], [false, -0.5], [false, -1], [false, -1]]), // all failed, rewards differ
      ...group(1, 3, [[true, 10.5], [false, -1], [false, -1], [false, -1]]), // a failing room solved once
      ...group(2, 0, [[true, 10.5], [true, 10.6], [false, -1], [true, 10.7]]), // same group id, next iteration
    ]);
    expect(s).toMatchObject({ groups: 5, zeroVariance: 2, allSolved: 1, allFailed: 2, mostlyFailed: 3, mostlyFailedSolvedOnce: 1 });
    expect([...s.successesPerGroup.entries()].sort()).toEqual([
      [0, 2],
      [1, 1],
      [3, 1],
      [4, 1],
    ]);
  });

  it('weighs GRPO advantages by turns as token-mean does: longer failures make the mean negative', () => {
    const episodes: GroupEpisode[] = [
      { iteration: 1, groupId: 0, success: true, reward: 1, turns: 2 },
      { iteration: 1, groupId: 0, success: false, reward: 0, turns: 10 },
    ];
    // Advantages +-1/sqrt(2) (unbiased std of {0, 1}); per turn (2 - 10) / sqrt(2) / 12.
    expect(groupSignal(episodes).advantagePerTurn).toBeCloseTo(-8 / Math.SQRT2 / 12, 5);
    expect(groupSignal(episodes.map((e) => ({ ...e, turns: 5 }))).advantagePerTurn).toBeCloseTo(0, 9);
    expect(groupSignal(episodes.map(({ turns: _, ...e }) => e)).advantagePerTurn).toBeNull();
  });
});
