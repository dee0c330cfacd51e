// Compare's metric panels (issue 21, point 4): which metrics the address names, which a new
// panel takes, swaps and removals, and the CSV of every panel naming its runs.
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { nextPanelMetric, panelsForNames, panelsFromQuery, removePanel, setPanelMetric, summaryDefaults } from '../../renderer/src/compare/panels';
import { buildPlot } from '../../renderer/src/compare/plot';
import { PLOT_CSV_COLUMNS, panelsToCsv, plotCsvFileName } from '../../renderer/src/compare/plot-csv';

const NAMES = [
  'actor/entropy', 'train/bandit/format_ok', 'train/bandit/reward', 'train/bandit/success', 'train/reward/mean', 'val/bandit/success',
];

describe('panels in the address', () => {
  it('reads one metric, repeated metrics in order, and drops blanks and repeats', () => {
    expect(panelsFromQuery({})).toEqual([]);
    expect(panelsFromQuery({ metric: 'train/reward/mean' })).toEqual(['train/reward/mean']);
    expect(panelsFromQuery({ metric: ['b', 'a', '', 'b', null] })).toEqual(['b', 'a']);
  });

  it('keeps the metrics the runs log, else one panel with validation success', () => {
    expect(panelsForNames(['val/bandit/success', 'gone'], NAMES)).toEqual(['val/bandit/success']);
    expect(panelsForNames(['gone'], NAMES)).toEqual(['val/bandit/success']);
    expect(panelsForNames([], NAMES.filter((n) => !n.startsWith('val/')))).toEqual(['train/bandit/success']);
    expect(panelsForNames([], ['actor/entropy', 'train/reward/mean'])).toEqual(['train/reward/mean']);
    expect(panelsForNames([], ['a', 'b'])).toEqual(['a']);
    expect(panelsForNames(['a'], [])).toEqual([]);
  });
  it('opens on the headline metric most of the selected runs log, not the first run\'s', () => {
    const names = ['train/bandit/success', 'train/frozenlake/success', 'train/reward/mean', 'val/bandit/success', 'val/frozenlake/success'];
    const runs = new Map([['train/bandit/success', 1], ['train/frozenlake/success', 3], ['train/reward/mean', 4], ['val/bandit/success', 1], ['val/frozenlake/success', 3]]);
    expect(panelsForNames([], names, runs)).toEqual(['val/frozenlake/success']);
    expect(panelsForNames([], names)).toEqual(['val/bandit/success']);
    // Validation success logged by one run of four gives way to train success logged by all.
    const fewVal = new Map([['train/x/success', 4], ['val/x/success', 1]]);
    expect(panelsForNames([], ['train/x/success', 'val/x/success'], fewVal)).toEqual(['train/x/success']);
    expect(nextPanelMetric(['val/frozenlake/success'], names, runs)).toBe('train/frozenlake/success');
    // The summary's columns too: those most runs log first, the names' order among equals.
    expect(summaryDefaults(names, runs)).toEqual(['train/reward/mean', 'val/frozenlake/success', 'val/bandit/success']);
    expect(summaryDefaults(names)).toEqual(['train/reward/mean', 'val/bandit/success', 'val/frozenlake/success']);
  });
});

describe('adding, changing and removing panels', () => {
  it('gives a new panel the next headline metric not shown, then any other', () => {
    expect(nextPanelMetric(['train/reward/mean'], NAMES)).toBe('val/bandit/success');
    expect(nextPanelMetric(['train/reward/mean', 'val/bandit/success'], NAMES)).toBe('train/bandit/success');
    const headlines = ['val/bandit/success', 'train/bandit/success', 'train/bandit/reward', 'train/bandit/format_ok', 'train/reward/mean'];
    expect(nextPanelMetric(headlines, NAMES)).toBe('actor/entropy');
    expect(nextPanelMetric(NAMES, NAMES)).toBeNull();
  });

  it('swaps when a panel takes the metric of another, and keeps the last panel', () => {
    expect(setPanelMetric(['a', 'b', 'c'], 0, 'c')).toEqual(['c', 'b', 'a']);
    expect(setPanelMetric(['a', 'b'], 1, 'd')).toEqual(['a', 'd']);
    expect(removePanel(['a', 'b', 'c'], 1)).toEqual(['a', 'c']);
    expect(removePanel(['a'], 0)).toEqual(['a']);
  });
});

describe('the CSV of every panel', () => {
  const points = [1, 2, 3].map((iteration) => ({ iteration, value: iteration * 2, wallTime: 1000 * iteration }));
  const runs = [
    { runId: 4, label: '#4 fl-small-s3 (seed 3)', points },
    { runId: 9, label: '#9 fl, "quoted" (seed 4)', points },
  ];
  const options = { xAxis: 'iteration', smoothing: 0.5, groups: null, bandMode: 'std', showMembers: true, logScale: false } as const;

  it('holds each panel under its metric, names the runs and the smoothing', () => {
    const csv = panelsToCsv(
      [
        { metric: 'train/reward/mean', lines: buildPlot(runs, options) },
        { metric: 'val/bandit/success', lines: buildPlot(runs.slice(0, 1), options) },
      ],
      'iteration',
      new Map([[4, 'fl-small-s3'], [9, 'fl, "quoted"']]),
    );
    const rows = parse(csv, { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(rows[0])).toEqual([...PLOT_CSV_COLUMNS]);
    // Two runs, each smoothed and raw, three points: 12 rows; then one run: 6.
    expect(rows.filter((r) => r.metric === 'train/reward/mean')).toHaveLength(12);
    expect(rows.filter((r) => r.metric === 'val/bandit/success')).toHaveLength(6);
    const smoothed = rows.find((r) => r.run_ids === '9' && r.kind === 'run')!;
    expect(smoothed).toMatchObject({ run_names: 'fl, "quoted"', series: '#9 fl, "quoted" (seed 4) (EMA 0.50)', smoothing: '0.5' });
    expect(rows.find((r) => r.run_ids === '4' && r.kind === 'raw_run')).toMatchObject({ run_names: 'fl-small-s3', smoothing: '0', value: '2' });
    // A raw series is not smoothed, so it is not labelled with the EMA.
    const raw = rows.find((r) => r.run_ids === '9' && r.kind === 'raw_run')!;
    expect(raw.series).toBe('#9 fl, "quoted" (seed 4) (raw)');
  });

  it('is named by its metric, or by how many metrics it holds', () => {
    expect(plotCsvFileName(['train/reward/mean'], [4, 9])).toBe('turnlab-compare-train_reward_mean-runs-4-9.csv');
    expect(plotCsvFileName(['a', 'b', 'c'], [4, 9])).toBe('turnlab-compare-3-metrics-runs-4-9.csv');
  });
});
