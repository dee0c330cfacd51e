// Compare's four smoothings (W&B's): values worked out by hand, the x-aware kinds on lines
// logged at different rates, and what the legend, the CSV and the menu say.
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { SeriesPointDto } from '../../preload/contract';
import { emaSmooth } from '../../renderer/src/compare/ema';
import { buildPlot, type PlotOptions } from '../../renderer/src/compare/plot';
import { plotToCsv } from '../../renderer/src/compare/plot-csv';
import { isActive, pointSpacing, smoothValues, switchSmoothing, SMOOTHING_KINDS } from '../../renderer/src/compare/smoothers';

const options: PlotOptions = { xAxis: 'iteration', smoothing: 0, groups: null, bandMode: 'std', showMembers: true, logScale: false };

function points(pairs: Array<[number, number | null]>): SeriesPointDto[] {
  return pairs.map(([iteration, value]) => ({ iteration, value, wallTime: 1_000_000 + iteration * 1000 }));
}

describe('time-weighted EMA', () => {
  it('is the EMA on a line with a point at every unit', () => {
    const x = [1, 2, 3, 4, 5];
    const y = [1, 5, 2, 8, 3];
    const twema = smoothValues({ kind: 'twema', amount: 0.7 }, x, y, 1);
    emaSmooth(y, 0.7).forEach((v, i) => expect(twema[i]).toBeCloseTo(v!, 12));
  });

  it('decays by the x distance: two units apart, the weight squared', () => {
    // w = 0.5: 1; then (1 x 0.25 + 3) / (0.25 + 1) = 2.6; then (3.25 x 0.5 + 5) / (1.25 x 0.5 + 1) = 6.625 / 1.625.
    const out = smoothValues({ kind: 'twema', amount: 0.5 }, [0, 2, 3], [1, 3, 5], 1);
    expect(out[0]).toBeCloseTo(1, 12);
    expect(out[1]).toBeCloseTo(2.6, 12);
    expect(out[2]).toBeCloseTo(6.625 / 1.625, 12);
  });

  it('smooths a run logged every other iteration by the densest run\'s spacing', () => {
    const dense = { runId: 1, label: 'dense', points: points([[1, 0], [2, 0], [3, 0], [4, 0], [5, 0]]) };
    const sparse = { runId: 2, label: 'sparse', points: points([[1, 1], [3, 3], [5, 5]]) };
    const lines = buildPlot([dense, sparse], { ...options, smoothing: 0.5, smoothingKind: 'twema' });
    const drawn = lines.find((l) => l.id === 'run-2')!;
    expect(drawn.label).toBe('sparse (time-weighted EMA 0.50)');
    expect(drawn.y[1]).toBeCloseTo(2.6, 12);
    // Two units again: (3.25 x 0.25 + 5) / (1.25 x 0.25 + 1).
    expect(drawn.y[2]).toBeCloseTo(5.8125 / 1.3125, 12);
    // The plain EMA weighs each of its points as a step: (1 x 0.5 + 3) / 1.5.
    const ema = buildPlot([dense, sparse], { ...options, smoothing: 0.5 }).find((l) => l.id === 'run-2')!;
    expect(ema.y[1]).toBeCloseTo(3.5 / 1.5, 12);
  });
});

describe('running average', () => {
  it('averages a centred window, fewer points at the ends, gaps left out', () => {
    expect(smoothValues({ kind: 'running', amount: 3 }, [1, 2, 3, 4, 5], [1, 2, 3, 4, 100], 1)).toEqual([1.5, 2, 3, 107 / 3, 52]);
    expect(smoothValues({ kind: 'running', amount: 3 }, [1, 2, 3, 4], [1, null, 3, 5], 1)).toEqual([1, null, 4, 4]);
    // An even window reaches one point further ahead than back.
    expect(smoothValues({ kind: 'running', amount: 2 }, [1, 2, 3], [0, 2, 4], 1)).toEqual([1, 3, 4]);
  });

  it('leaves the line as it is at a window of one', () => {
    expect(isActive({ kind: 'running', amount: 1 })).toBe(false);
    const lines = buildPlot([{ runId: 1, label: 'a', points: points([[1, 1], [2, 3]]) }], { ...options, smoothing: 1, smoothingKind: 'running' });
    expect(lines.map((l) => l.label)).toEqual(['a']);
  });
});

describe('Gaussian', () => {
  it('weighs every point by its x distance', () => {
    const out = smoothValues({ kind: 'gaussian', amount: 1 }, [0, 1, 2], [0, 0, 3], 1);
    const w = [Math.exp(-2), Math.exp(-0.5), 1];
    expect(out[2]).toBeCloseTo((3 * w[2]) / (w[0] + w[1] + w[2]), 12);
    expect(out[0]).toBeCloseTo((3 * Math.exp(-2)) / (1 + Math.exp(-0.5) + Math.exp(-2)), 12);
  });

  it('reads sigma in points of the densest line, and ignores points past four sigma', () => {
    expect(smoothValues({ kind: 'gaussian', amount: 1 }, [0, 10], [0, 5], 1)).toEqual([0, 5]);
    // Spacing 10 (the densest line's): sigma 1 point is 10 on x.
    expect(pointSpacing([{ x: [0, 10] }, { x: [0, 10, 20, 30] }])).toBe(10);
    const out = smoothValues({ kind: 'gaussian', amount: 1 }, [0, 10], [0, 5], 10);
    expect(out[0]).toBeCloseTo((5 * Math.exp(-0.5)) / (1 + Math.exp(-0.5)), 12);
  });
});

describe('smoothing on the plot', () => {
  it('names the kind in the legend and in the CSV, and smooths a group\'s band like its mean', () => {
    const a = { runId: 1, label: 'a', points: points([[1, 0], [2, 0], [3, 0]]) };
    const b = { runId: 2, label: 'b', points: points([[1, 2], [2, 2], [3, 8]]) };
    const lines = buildPlot([a, b], { ...options, smoothing: 3, smoothingKind: 'running', groups: [{ label: 'g', runIds: [1, 2] }], bandMode: 'minmax', showMembers: false });
    expect(lines.map((l) => [l.id, l.label])).toEqual([
      ['group-1-2', 'g (running mean 3)'],
      ['group-1-2-raw', 'g (running mean 3)'],
    ]);
    // Means 1, 1, 4 -> 1, 2, 2.5; the upper edge (b) 2, 2, 8 -> 2, 4, 5; the lower (a) stays 0.
    expect(lines[0].y).toEqual([1, 2, 2.5]);
    expect(lines[0].upper).toEqual([2, 4, 5]);
    expect(lines[0].lower).toEqual([0, 0, 0]);
    const rows = parse(plotToCsv('m', 'iteration', lines), { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.kind, r.smoothing, r.smoothing_kind])).toEqual([
      ['group_mean', '3', 'running'], ['group_mean', '3', 'running'], ['group_mean', '3', 'running'],
      ['raw_group_mean', '0', ''], ['raw_group_mean', '0', ''], ['raw_group_mean', '0', ''],
    ]);
  });
});

describe('switching the menu', () => {
  it('keeps an amount that means something in the new kind, else sets the kind\'s own', () => {
    expect(switchSmoothing({ kind: 'ema', amount: 0.6 }, 'twema')).toEqual({ kind: 'twema', amount: 0.6 });
    expect(switchSmoothing({ kind: 'ema', amount: 0.6 }, 'running')).toEqual({ kind: 'running', amount: 9 });
    expect(switchSmoothing({ kind: 'running', amount: 5 }, 'gaussian')).toEqual({ kind: 'gaussian', amount: 5 });
    // Smoothing off is not kept: picking a kind asks for it.
    expect(switchSmoothing({ kind: 'ema', amount: 0 }, 'gaussian')).toEqual({ kind: 'gaussian', amount: 3 });
    expect(SMOOTHING_KINDS).toEqual(['ema', 'twema', 'running', 'gaussian']);
  });
});
