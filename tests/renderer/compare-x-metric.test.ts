// Compare's x axis read from another metric of each run (W&B's "any metric as x"): runs of
// different batch sizes side by side by the tokens they generated, not by their iterations.
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { SeriesPointDto } from '../../preload/contract';
import { buildChartOption, formatX, tooltipAtX } from '../../renderer/src/compare/chart-option';
import { buildPlot, xAxisLabel, xAxisMetric, type PlotOptions, type RunSeries } from '../../renderer/src/compare/plot';
import { plotToCsv } from '../../renderer/src/compare/plot-csv';

const TOKENS = 'perf/total_generated_tokens';
const X = `metric:${TOKENS}` as const;
const options: PlotOptions = { xAxis: X, smoothing: 0, groups: null, bandMode: 'std', showMembers: false, logScale: false };

function points(pairs: Array<[iteration: number, value: number | null]>): SeriesPointDto[] {
  return pairs.map(([iteration, value]) => ({ iteration, value, wallTime: 1_000_000 + iteration * 1000 }));
}

describe('a metric as the x axis', () => {
  it('places each point at the x metric of its iteration: a run twice the batch reaches 400 tokens in half the iterations', () => {
    const small: RunSeries = { runId: 1, label: 'batch 100', points: points([[1, 0.1], [2, 0.2], [3, 0.3], [4, 0.4]]), xPoints: points([[1, 100], [2, 200], [3, 300], [4, 400]]) };
    const large: RunSeries = { runId: 2, label: 'batch 200', points: points([[1, 0.15], [2, 0.5]]), xPoints: points([[1, 200], [2, 400]]) };
    const [a, b] = buildPlot([small, large], options);
    expect(a.x).toEqual([100, 200, 300, 400]);
    expect(a.y).toEqual([0.1, 0.2, 0.3, 0.4]);
    expect(b.x).toEqual([200, 400]);
    expect(b.iteration).toEqual([1, 2]);
  });

  it('reads between the iterations the x metric was kept at, and leaves out points outside them', () => {
    // The server thinned the x series to iterations 2, 6 and 10; the y series kept 1, 4, 6, 9 and 12.
    const run: RunSeries = {
      runId: 1,
      label: 'r',
      points: points([[1, 1], [4, 4], [6, 6], [9, 9], [12, 12]]),
      xPoints: points([[2, 20], [6, 100], [10, 120]]),
    };
    const [line] = buildPlot([run], options);
    // 4 is half way from 2 (20) to 6 (100): 60; 9 is three quarters from 6 (100) to 10 (120): 115.
    expect(line.iteration).toEqual([4, 6, 9]);
    expect(line.x).toEqual([60, 100, 115]);
  });

  it('draws in x order when the x metric does not grow with the iteration', () => {
    const run: RunSeries = { runId: 1, label: 'r', points: points([[1, 10], [2, 20], [3, 30]]), xPoints: points([[1, 0.5], [2, 0.1], [3, 0.9]]) };
    const [line] = buildPlot([run], options);
    expect(line.x).toEqual([0.1, 0.5, 0.9]);
    expect(line.y).toEqual([20, 10, 30]);
    expect(line.iteration).toEqual([2, 1, 3]);
  });

  it('draws nothing of a run that never logged the x metric, and skips null x values', () => {
    const without: RunSeries = { runId: 1, label: 'old', points: points([[1, 1], [2, 2]]) };
    const gappy: RunSeries = { runId: 2, label: 'gappy', points: points([[1, 1], [2, 2], [3, 3]]), xPoints: points([[1, 10], [2, null], [3, 30]]) };
    const [a, b] = buildPlot([without, gappy], options);
    expect(a.x).toEqual([]);
    // Iteration 2's x is read between 1 and 3, past the null.
    expect(b.x).toEqual([10, 20, 30]);
  });

  it('aligns a seed group on the iteration and draws it at the members\' mean x; a member without x sits out', () => {
    const runs: RunSeries[] = [
      { runId: 1, label: 's1', points: points([[1, 0.2], [2, 0.4]]), xPoints: points([[1, 100], [2, 220]]) },
      { runId: 2, label: 's2', points: points([[1, 0.4], [2, 0.6]]), xPoints: points([[1, 120], [2, 240]]) },
      { runId: 3, label: 's3', points: points([[1, 0.9], [2, 0.9]]) },
    ];
    const [group] = buildPlot(runs, { ...options, groups: [{ label: 'g', runIds: [1, 2, 3] }] });
    expect(group.kind).toBe('group');
    expect(group.x).toEqual([110, 230]);
    expect(group.y.map((v) => Number(v!.toFixed(6)))).toEqual([0.3, 0.5]);
    expect(group.n).toEqual([2, 2]);
  });

  it('places a fork\'s parent curve by the parent\'s own x metric', () => {
    const fork: RunSeries = {
      runId: 2,
      label: 'fork',
      points: points([[3, 0.5], [4, 0.6]]),
      xPoints: points([[3, 900], [4, 1000]]),
      lineage: { parentRunId: 1, upTo: 2, points: points([[1, 0.1], [2, 0.2]]), xPoints: points([[1, 300], [2, 600], [3, 800]]) },
    };
    const lines = buildPlot([fork], options);
    expect(lines.map((l) => l.id)).toEqual(['run-2', 'run-2-lineage']);
    expect(lines[1].x).toEqual([300, 600]);
  });

  it('names the metric under the chart, in the tooltip and in the exported CSV', () => {
    const run: RunSeries = { runId: 1, label: 'r', points: points([[1, 0.5]]), xPoints: points([[1, 1234.5]]) };
    const lines = buildPlot([run], options);
    const option = buildChartOption(lines, { xAxis: X, logScale: false, extent: [1234.5, 1234.5] }) as { xAxis: { name: string; type: string } };
    expect(option.xAxis.name).toBe(TOKENS);
    expect(option.xAxis.type).toBe('value');
    expect(formatX(1234.5, X)).toBe(`${TOKENS} = 1234.5`);
    const rows = parse(plotToCsv('val/bandit/success', X, lines), { columns: true }) as Array<Record<string, string>>;
    expect(rows).toEqual([expect.objectContaining({ x_axis: X, x: '1234.5', iteration: '1', value: '0.5' })]);
  });

  it('tells a metric axis from iteration and the clocks', () => {
    expect(xAxisMetric(X)).toBe(TOKENS);
    expect(xAxisMetric('relative')).toBeNull();
    expect(xAxisLabel('relative')).toBe('time since start (s)');
  });
});

describe('the tooltip where lines do not share their x', () => {
  const lines = () =>
    buildPlot(
      [
        { runId: 1, label: 'a', points: points([[1, 0.1], [2, 0.2], [3, 0.3]]), xPoints: points([[1, 100], [2, 200], [3, 300]]) },
        { runId: 2, label: 'b <i>', points: points([[1, 0.5], [2, 0.7]]), xPoints: points([[1, 150], [2, 260]]) },
        { runId: 3, label: 'c', points: points([[1, 0.9]]), xPoints: points([[1, 1000]]) },
      ],
      options,
    );

  it('lists every line spanning the x with its nearest value, not only the nearest line', () => {
    // At 240: a's nearest point is 200 (0.2), b's is 260 (0.7); c has no point near 240 and is left out.
    const html = tooltipAtX(lines(), 240, X);
    const rows = html.split('<br/>');
    expect(rows[0]).toBe(`${TOKENS} = 240`);
    expect(rows.slice(1).map((row) => row.replace(/<span style[^>]*><\/span>/, ''))).toEqual(['a: 0.2', 'b &lt;i&gt;: 0.7']);
  });

  it('leaves out lines the legend hides, and gives a smoothed line its raw value', () => {
    expect(tooltipAtX(lines(), 240, X, (label) => label === 'a')).not.toContain('a: ');
    const smoothed = buildPlot([{ runId: 1, label: 'a', points: points([[1, 0], [2, 1]]), xPoints: points([[1, 10], [2, 20]]) }], { ...options, smoothing: 0.5 });
    expect(tooltipAtX(smoothed, 20, X).split('<br/>').slice(1).map((row) => row.replace(/<span style[^>]*><\/span>/, ''))).toEqual([
      // Debiased as TensorBoard's: (0.5 * 0 + 0.5 * 1) / (1 - 0.5^2).
      'a (EMA 0.50): 0.66667 <span class="raw-value">(raw 1)</span>',
    ]);
  });
});
