import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { minMaxIndices } from '../../preload/min-max-downsample';
import { buildPlot, downsamplePlot, xExtent, type PlotOptions, type RunSeries } from '../../renderer/src/compare/plot';
import { PLOT_CSV_COLUMNS, plotToCsv } from '../../renderer/src/compare/plot-csv';
import { buildChartOption, formatSeconds, tooltipHtml, zoomWindow } from '../../renderer/src/compare/chart-option';
import { defaultDirection, summarize } from '../../renderer/src/compare/summary';
import type { SeriesPointDto } from '../../preload/contract';

function series(n: number, f: (i: number) => number | null, t0 = 1_000_000): SeriesPointDto[] {
  return Array.from({ length: n }, (_, i) => ({ iteration: i + 1, value: f(i), wallTime: t0 + i * 2000 }));
}

const options: PlotOptions = { xAxis: 'iteration', smoothing: 0, groups: null, bandMode: 'std', showMembers: true, logScale: false };

describe('minMaxIndices', () => {
  it('keeps a one-point spike and the extremes of every bucket', () => {
    const xs = Array.from({ length: 10_000 }, (_, i) => i);
    const ys = xs.map((i) => Math.sin(i / 50));
    ys[4321] = 100;
    ys[777] = -100;
    const kept = minMaxIndices(xs, [ys], 500);
    expect(kept.length).toBeLessThanOrEqual(502);
    expect(kept).toContain(4321);
    expect(kept).toContain(777);
    expect(kept[0]).toBe(0);
    expect(kept[kept.length - 1]).toBe(9999);
  });

  it('recomputes at full resolution inside a zoom window, one neighbour beyond each edge', () => {
    const xs = Array.from({ length: 10_000 }, (_, i) => i);
    const ys = xs.map((i) => i % 7);
    const kept = minMaxIndices(xs, [ys], 500, [1000, 1100]);
    expect(kept).toEqual(Array.from({ length: 103 }, (_, i) => 999 + i));
  });

  it('keeps a gap visible', () => {
    const xs = Array.from({ length: 1000 }, (_, i) => i);
    const ys: Array<number | null> = xs.map(() => 1);
    ys[500] = null;
    expect(minMaxIndices(xs, [ys], 60)).toContain(500);
  });
});

describe('buildPlot', () => {
  const runs: RunSeries[] = [
    { runId: 1, label: 'a seed 1', points: series(5, (i) => i) },
    { runId: 2, label: 'a seed 2', points: series(5, (i) => i + 2, 5_000_000) },
    { runId: 3, label: 'b', points: series(3, () => -1) },
  ];

  it('draws one line per run without groups', () => {
    const lines = buildPlot(runs, options);
    expect(lines.map((l) => l.id)).toEqual(['run-1', 'run-2', 'run-3']);
    expect(lines[0].x).toEqual([1, 2, 3, 4, 5]);
  });

  it('draws a group as mean with band, members toggleable', () => {
    const groups = [
      { label: 'a (2 seeds)', runIds: [1, 2] },
      { label: 'b', runIds: [3] },
    ];
    const withMembers = buildPlot(runs, { ...options, groups });
    expect(withMembers.map((l) => [l.id, l.member])).toEqual([
      ['group-1-2', false],
      ['run-1', true],
      ['run-2', true],
      ['run-3', false],
    ]);
    expect(withMembers[0].y).toEqual([1, 2, 3, 4, 5]);
    expect(withMembers[0].upper![0]).toBeCloseTo(1 + Math.SQRT2, 12);
    const without = buildPlot(runs, { ...options, groups, showMembers: false });
    expect(without.map((l) => l.id)).toEqual(['group-1-2', 'run-3']);
  });

  it('puts each run on its own clock for relative time, and drops non-positive values on a log scale', () => {
    const rel = buildPlot(runs, { ...options, xAxis: 'relative' });
    expect(rel[1].x).toEqual([0, 2, 4, 6, 8]);
    const log = buildPlot(runs, { ...options, logScale: true });
    expect(log[0].y[0]).toBeNull();
    expect(log[2].y).toEqual([null, null, null]);
  });

  it('smooths with the EMA weight', () => {
    const lines = buildPlot([{ runId: 1, label: 'x', points: series(3, (i) => (i === 2 ? 10 : 0)) }], { ...options, smoothing: 0.5 });
    expect(lines[0].y[2]!).toBeGreaterThan(0);
    expect(lines[0].y[2]!).toBeLessThan(10);
  });

  it('draws the raw curve under a smoothed one, both named with the smoothing', () => {
    const points = series(3, (i) => (i === 2 ? 10 : 0));
    const lines = buildPlot([{ runId: 1, label: 'x', points }], { ...options, smoothing: 0.5 });
    expect(lines.map((l) => [l.id, l.label, l.raw ?? false, l.smoothing])).toEqual([
      ['run-1', 'x (EMA 0.50)', false, 0.5],
      ['run-1-raw', 'x (EMA 0.50)', true, 0],
    ]);
    expect(lines[1].y).toEqual([0, 0, 10]);
    const rows = parse(plotToCsv('m', 'iteration', lines), { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.kind, r.smoothing])).toEqual([
      ['run', '0.5'], ['run', '0.5'], ['run', '0.5'], ['raw_run', '0'], ['raw_run', '0'], ['raw_run', '0'],
    ]);
    // Without smoothing there is no twin.
    expect(buildPlot([{ runId: 1, label: 'x', points }], options).map((l) => l.label)).toEqual(['x']);
  });
});

describe('plotToCsv', () => {
  it('writes exactly the plotted points, bands included', () => {
    const runs: RunSeries[] = [
      { runId: 1, label: 'seed, "one"', points: series(2000, (i) => Math.cos(i)) },
      { runId: 2, label: 'seed two', points: series(2000, (i) => (i === 1234 ? null : Math.sin(i))) },
    ];
    const plotted = downsamplePlot(buildPlot(runs, { ...options, groups: [{ label: 'g', runIds: [1, 2] }] }), 300);
    const rows = parse(plotToCsv('train/reward/mean', 'iteration', plotted), { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(rows[0])).toEqual([...PLOT_CSV_COLUMNS]);
    const total = plotted.reduce((s, l) => s + l.x.length, 0);
    expect(rows).toHaveLength(total);
    const group = rows.filter((r) => r.kind === 'group_mean');
    expect(group).toHaveLength(plotted[0].x.length);
    group.forEach((r, i) => {
      expect(Number(r.x)).toBe(plotted[0].x[i]);
      expect(Number(r.value)).toBe(plotted[0].y[i]);
      expect(Number(r.upper)).toBe(plotted[0].upper![i]);
    });
    expect(rows.filter((r) => r.series === 'seed, "one"')[0].kind).toBe('member_run');
    const gap = rows.find((r) => r.run_ids === '2' && r.iteration === '1235')!;
    expect(gap.value).toBe('');
  });
});

describe('chart option and zoom', () => {
  it('builds stacked band series sharing the line name and a fixed x extent', () => {
    const runs: RunSeries[] = [
      { runId: 1, label: 'r1', points: series(10, (i) => i) },
      { runId: 2, label: 'r2', points: series(10, (i) => i * 2) },
    ];
    const lines = buildPlot(runs, { ...options, groups: [{ label: 'g', runIds: [1, 2] }], showMembers: false });
    const option = buildChartOption(lines, { xAxis: 'iteration', logScale: true, extent: xExtent(lines) });
    const series_ = option.series as Array<{ id: string; name: string; stack?: string }>;
    expect(series_.map((s) => s.id)).toEqual(['group-1-2-band-lower', 'group-1-2-band-width', 'group-1-2']);
    expect(new Set(series_.map((s) => s.name))).toEqual(new Set(['g']));
    expect(series_[0].stack).toBe(series_[1].stack);
    expect(option.xAxis).toMatchObject({ min: 1, max: 10 });
    expect(option.yAxis).toMatchObject({ type: 'log' });
    // No `axisLabel: undefined`: it would replace ECharts' defaults and hide the tick labels.
    expect(Object.keys(buildChartOption(lines, { xAxis: 'wall', logScale: false, extent: null }).xAxis as object)).not.toContain('axisLabel');
    expect(option.xAxis).toHaveProperty('axisLabel.formatter');
    expect(buildChartOption(lines, { xAxis: 'relative', logScale: false, extent: null }).xAxis).toHaveProperty('axisLabel.formatter');
  });

  it('draws a dot at a point no line reaches: a run validated once, a value between gaps', () => {
    const runs: RunSeries[] = [
      { runId: 1, label: 'once', points: [{ iteration: 4, value: 0.25, wallTime: 1 }] },
      { runId: 2, label: 'gappy', points: series(5, (i) => [1, null, 2, null, 3][i]) },
      { runId: 3, label: 'whole', points: series(3, (i) => i) },
    ];
    const lines = buildPlot(runs, options);
    const shown = buildChartOption(lines, { xAxis: 'iteration', logScale: false, extent: xExtent(lines) }).series as Array<{ id: string; showSymbol: boolean; data: unknown[] }>;
    const byId = new Map(shown.map((s) => [s.id, s]));
    const dot = (x: number, y: number) => ({ value: [x, y], symbol: 'circle', symbolSize: 6 });
    const once = byId.get(lines[0].id)!;
    expect(once.showSymbol).toBe(true);
    expect(once.data).toEqual([dot(4, 0.25)]);
    expect(byId.get(lines[1].id)!.data).toEqual([dot(1, 1), [2, null], dot(3, 2), [4, null], dot(5, 3)]);
    const whole = byId.get(lines[2].id)!;
    expect(whole.showSymbol).toBe(false);
    expect(whole.data).toEqual([[1, 0], [2, 1], [3, 2]]);
    // A single x value is left to ECharts, which draws a range around it (a min equal to the max put the dot on the edge).
    const single = buildPlot([runs[0]], options);
    expect(buildChartOption(single, { xAxis: 'iteration', logScale: false, extent: xExtent(single) }).xAxis).toMatchObject({ min: undefined, max: undefined });
  });

  it('reads a zoom window from percentages or values', () => {
    expect(zoomWindow({ start: 10, end: 50 }, [0, 200])).toEqual([20, 100]);
    expect(zoomWindow({ batch: [{ startValue: 3, endValue: 9 }] }, [0, 200])).toEqual([3, 9]);
  });
});

describe('summarize', () => {
  it('gives the final and best values with their iterations', () => {
    const points = series(5, (i) => [0.2, 0.9, null, 0.5, 0.4][i]);
    expect(summarize(points, 'max')).toEqual({ final: 0.4, finalIteration: 5, best: 0.9, bestIteration: 2, count: 4 });
    expect(summarize(points, 'min')).toMatchObject({ best: 0.2, bestIteration: 1 });
    expect(summarize([], 'max')).toMatchObject({ final: null, best: null, count: 0 });
  });

  it('guesses which way is better from the name', () => {
    expect(defaultDirection('train/loss/policy')).toBe('min');
    expect(defaultDirection('val/bandit/success')).toBe('max');
  });
});

describe('chart tooltip and axis', () => {
  it('shows the raw value beside the smoothed one', () => {
    const html = tooltipHtml(
      [
        { seriesId: 'run-1', seriesName: 'a (EMA 0.60)', value: [3, 0.51234], marker: '' },
        { seriesId: 'run-1-raw', seriesName: 'a (EMA 0.60)', value: [3, 0.75], marker: '' },
        { seriesId: 'run-1-band-lower', seriesName: 'a (EMA 0.60)', value: [3, 0.1], marker: '' },
      ],
      'iteration',
    );
    expect(html).toBe('iteration 3<br/>a (EMA 0.60): 0.51234 <span class="raw-value">(raw 0.75)</span>');
  });

  it('keeps a rate axis within [0, 1] while the data does', () => {
    const yAxis = buildChartOption([], { xAxis: 'iteration', logScale: false, extent: null, range: [0, 1] }).yAxis as {
      min: (v: { min: number }) => number;
      max: (v: { max: number }) => number;
    };
    expect([yAxis.min({ min: 0.2 }), yAxis.max({ max: 0.9 })]).toEqual([0, 1]);
    expect(yAxis.max({ max: 1.3 })).toBe(1.3);
  });
});

describe('fork lineage', () => {
  it("draws a fork's parent up to the fork after the fork's line, faint, in its colour, toggled with it", () => {
    const parent = series(6, (i) => i / 10);
    const fork: RunSeries = { runId: 2, label: 'fork', points: series(4, (i) => 0.6 + i / 10).map((p) => ({ ...p, iteration: p.iteration + 6 })), lineage: { parentRunId: 1, upTo: 6, points: parent } };
    const lines = buildPlot([fork], { ...options, smoothing: 0.5 });
    expect(lines.map((l) => [l.id, l.label, l.raw ?? false, l.lineage ?? null])).toEqual([
      ['run-2', 'fork (EMA 0.50)', false, null],
      ['run-2-lineage', 'fork (EMA 0.50)', false, { forkRunId: 2, upTo: 6 }],
      ['run-2-raw', 'fork (EMA 0.50)', true, null],
    ]);
    expect(lines[1].runIds).toEqual([1]);
    expect(lines[1].iteration).toEqual([1, 2, 3, 4, 5, 6]);
    const drawn = buildChartOption(lines, { xAxis: 'iteration', logScale: false, extent: null }).series as Array<{ id: string; color: string; lineStyle: { opacity: number } }>;
    const [own, lineage] = drawn;
    expect(lineage.color).toBe(own.color);
    expect(lineage.lineStyle.opacity).toBeLessThan(1);
    expect(plotToCsv('actor/entropy', 'iteration', lines)).toContain('parent_run_before_fork');
  });

  it('times the parent back from the fork point on the relative axis, however long after it the fork started', () => {
    const parent = series(6, (i) => i / 10);
    // Forked a day after the parent's sixth iteration.
    const fork: RunSeries = { runId: 2, label: 'fork', points: series(4, (i) => 0.6 + i / 10, 1_000_000 + 86_400_000).map((p) => ({ ...p, iteration: p.iteration + 6 })), lineage: { parentRunId: 1, upTo: 6, points: parent } };
    const [own, lineage] = buildPlot([fork], { ...options, xAxis: 'relative' });
    expect(own.x).toEqual([0, 2, 4, 6]);
    expect(lineage.x).toEqual([-10, -8, -6, -4, -2, 0]);
  });

  it('writes a negative time with its sign once', () => {
    expect([formatSeconds(-1049), formatSeconds(-30), formatSeconds(3725)]).toEqual(['-17:29', '-30 s', '1:02:05']);
  });
});
