// Compare's note under a panel drawn on a log scale: whose values of 0 or below it leaves out.
import { describe, expect, it } from 'vitest';
import type { RunSeriesDto } from '../../preload/contract';
import { logScaleNote } from '../../renderer/src/compare/missing-runs';

const series = (runId: number, values: Array<number | null>): RunSeriesDto =>
  ({ runId, name: 'm', points: values.map((value, iteration) => ({ iteration, value, wallTime: iteration })) }) as unknown as RunSeriesDto;

describe('logScaleNote', () => {
  it('names the runs left out entirely and those left out in part, and nothing when all are above 0', () => {
    const loaded = [series(1, [0.5, 1]), series(2, [0, 0]), series(3, [-0.1, 0.2, null]), series(4, [null])];
    expect(logScaleNote(loaded, [1, 2, 3, 4])).toBe('The log scale leaves out values of 0 or below: run #2 entirely, run #3 in part.');
    expect(logScaleNote(loaded, [1, 4])).toBeNull();
    expect(logScaleNote(undefined, [1])).toBeNull();
  });
});

describe('xAxisNote', () => {
  it('names the runs that do not log the x metric, else says when it never changes', async () => {
    const { xAxisNote } = await import('../../renderer/src/compare/missing-runs');
    const flat = [series(1, [0, 0, 0]), series(2, [0, null])];
    expect(xAxisNote('perf/total_env_steps', flat, [1, 2])).toBe('Every value of perf/total_env_steps is 0, so every point stands at one x: pick an x axis that changes over a run.');
    expect(xAxisNote('perf/total_env_steps', flat, [1, 2, 3])).toBe('Run #3 does not log perf/total_env_steps, so it is not drawn against it.');
    expect(xAxisNote('tokens', [series(1, [1, 2])], [1])).toBeNull();
  });
});
