// A log x axis (W&B's and TensorBoard's): points at x <= 0 are left out, the downsampler's buckets
// are even in log x as the pixels are, the axis is ECharts' log axis, and a zoom's percentages
// are of log x.
import { describe, expect, it } from 'vitest';
import type { SeriesPointDto } from '../../preload/contract';
import { buildChartOption, zoomWindow } from '../../renderer/src/compare/chart-option';
import { buildPlot, downsamplePlot, type PlotOptions } from '../../renderer/src/compare/plot';

const options: PlotOptions = { xAxis: 'iteration', smoothing: 0, groups: null, bandMode: 'std', showMembers: true, logScale: false };

function series(n: number, f: (i: number) => number): SeriesPointDto[] {
  return Array.from({ length: n }, (_, i) => ({ iteration: i + 1, value: f(i), wallTime: 1_000_000 + i * 2000 }));
}

describe('log x', () => {
  it('leaves out the points a log axis cannot place, and only those', () => {
    const run = { runId: 1, label: 'a', points: series(4, (i) => i) };
    // Relative time starts at 0 s: that point has no place on a log axis.
    expect(buildPlot([run], { ...options, xAxis: 'relative', logX: true })[0].x).toEqual([2, 4, 6]);
    expect(buildPlot([run], { ...options, xAxis: 'relative' })[0].x).toEqual([0, 2, 4, 6]);
    expect(buildPlot([run], { ...options, logX: true })[0].x).toEqual([1, 2, 3, 4]);
    // A count that starts at 0 loses its first point; a group's mean likewise.
    const counted = { ...run, xPoints: series(4, (i) => i * 10) };
    expect(buildPlot([counted], { ...options, xAxis: 'metric:n', logX: true })[0].x).toEqual([10, 20, 30]);
    const other = { runId: 2, label: 'b', points: series(4, (i) => i + 1), xPoints: series(4, (i) => i * 10) };
    const group = buildPlot([counted, other], { ...options, xAxis: 'metric:n', logX: true, groups: [{ label: 'g', runIds: [1, 2] }], showMembers: false });
    expect(group[0].x).toEqual([10, 20, 30]);
    expect(group[0].y).toEqual([1.5, 2.5, 3.5]);
  });

  it('keeps the first decades in full where even buckets in x would merge them', () => {
    const lines = buildPlot([{ runId: 1, label: 'a', points: series(10_000, (i) => Math.sin(i)) }], options);
    const even = downsamplePlot(lines, 400)[0].x;
    const logged = downsamplePlot(lines, 400, undefined, true)[0].x;
    const firstTen = (xs: number[]) => xs.filter((x) => x <= 10).length;
    expect(firstTen(logged)).toBe(10);
    expect(firstTen(even)).toBeLessThan(4);
    // Still about the budget in all.
    expect(logged.length).toBeLessThan(600);
  });

  it("draws ECharts' log axis and reads a zoom's percentages in log x", () => {
    const lines = buildPlot([{ runId: 1, label: 'a', points: series(5, (i) => i) }], options);
    const axis = buildChartOption(lines, { xAxis: 'iteration', logScale: false, logX: true, extent: [1, 5] }).xAxis as { type: string; minInterval?: number };
    expect(axis.type).toBe('log');
    expect(axis.minInterval).toBeUndefined();
    expect((buildChartOption(lines, { xAxis: 'iteration', logScale: false, extent: [1, 5] }).xAxis as { type: string }).type).toBe('value');
    const [lo, hi] = zoomWindow({ start: 50, end: 100 }, [1, 10_000], true);
    expect(lo).toBeCloseTo(100, 9);
    expect(hi).toBeCloseTo(10_000, 6);
    expect(zoomWindow({ start: 50, end: 100 }, [1, 10_001])).toEqual([5001, 10_001]);
  });

  it('labels an iteration axis at whole iterations only: a zoomed window edge (2.822) gets no tick label', () => {
    const lines = buildPlot([{ runId: 1, label: 'a', points: series(5, (i) => i) }], options);
    const axis = buildChartOption(lines, { xAxis: 'iteration', logScale: false, extent: [1, 5] }).xAxis as { axisLabel?: { formatter?: (v: number) => string } };
    const label = axis.axisLabel!.formatter!;
    expect([2.822, 3, 2500].map(label)).toEqual(['', '3', '2,500']);
    expect((buildChartOption(lines, { xAxis: 'iteration', logScale: false, logX: true, extent: [1, 5] }).xAxis as { axisLabel?: unknown }).axisLabel).toBeUndefined();
  });
});
