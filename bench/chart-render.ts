/**
 * Comparison chart of 20 runs x 10,000 points (issue 5, point 5): the time to smooth, group,
 * downsample and build the ECharts option in Node, and the time Chromium takes to draw it
 * (headless, through playwright-core) for the first view and for a zoom that recomputes the
 * downsampling, next to ECharts drawing all 200,000 raw points for contrast.
 * Run alone: npx tsx bench/chart-render.ts
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SeriesPointDto } from '../preload/contract';
import { buildChartOption } from '../renderer/src/compare/chart-option';
import { buildPlot, downsamplePlot, xExtent, type PlotOptions, type RunSeries } from '../renderer/src/compare/plot';
import { Rng } from '../trainer-core/rng';

const RUNS = 20;
const POINTS = 10_000;
const SEEDS_PER_GROUP = 5;
const CHART_WIDTH = 1200;
/** What CompareChart uses: two points per horizontal pixel per line. */
const BUDGET = CHART_WIDTH * 2;
const REPEATS = 3;
const CHROMIUM = '/usr/bin/chromium';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Noisy reward curves with occasional spikes, the shape that naive sampling loses. */
export function syntheticRuns(runs = RUNS, points = POINTS): RunSeries[] {
  const rng = new Rng(2024);
  return Array.from({ length: runs }, (_, r) => {
    let level = 0;
    const series: SeriesPointDto[] = [];
    for (let i = 0; i < points; i++) {
      level += 0.0004 + rng.normal() * 0.01;
      const spike = rng.next() < 0.001 ? rng.normal() * 5 : 0;
      series.push({ iteration: i + 1, value: level + rng.normal() * 0.2 + spike, wallTime: 1_750_000_000_000 + r * 1e7 + i * 1500 });
    }
    return { runId: r + 1, label: `run ${r + 1}`, points: series };
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timeIt<T>(fn: () => T): { ms: number; result: T } {
  const times: number[] = [];
  let result!: T;
  for (let i = 0; i < REPEATS; i++) {
    const t = performance.now();
    result = fn();
    times.push(performance.now() - t);
  }
  return { ms: median(times), result };
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

function nodeFigures(runs: RunSeries[]): void {
  const plain: PlotOptions = { xAxis: 'iteration', smoothing: 0.6, groups: null, bandMode: 'std', showMembers: true, logScale: false };
  const groups = Array.from({ length: RUNS / SEEDS_PER_GROUP }, (_, g) => ({
    label: `group ${g + 1}`,
    runIds: Array.from({ length: SEEDS_PER_GROUP }, (_, k) => g * SEEDS_PER_GROUP + k + 1),
  }));
  const grouped: PlotOptions = { ...plain, groups };
  const build = timeIt(() => buildPlot(runs, plain));
  const down = timeIt(() => downsamplePlot(build.result, BUDGET));
  const kept = down.result.reduce((s, l) => s + l.x.length, 0);
  const extent = xExtent(build.result)!;
  const option = timeIt(() => buildChartOption(down.result, { xAxis: 'iteration', logScale: false, extent }));
  const zoom = timeIt(() => downsamplePlot(build.result, BUDGET, [4000, 5000]));
  const groupBuild = timeIt(() => buildPlot(runs, grouped));
  const groupDown = timeIt(() => downsamplePlot(groupBuild.result, BUDGET));
  // The other smoothings at their sliders' heaviest; the Gaussian's cost grows with its sigma.
  const kinds = ([['twema', 0.99], ['running', 100], ['gaussian', 3], ['gaussian', 50]] as const).map(([kind, amount]) => {
    const ms = timeIt(() => buildPlot(runs, { ...plain, smoothingKind: kind, smoothing: amount })).ms;
    return `node  smooth (${kind} ${amount}) + lines:`.padEnd(41) + fmt(ms);
  });
  process.stdout.write(
    [
      `data: ${RUNS} runs x ${POINTS} points = ${RUNS * POINTS} points, chart ${CHART_WIDTH} px wide (median of ${REPEATS})`,
      `node  smooth (EMA 0.6) + lines:          ${fmt(build.ms)}`,
      `node  downsample (min/max per bucket):   ${fmt(down.ms)}  -> ${kept} points drawn (${((kept / (RUNS * POINTS)) * 100).toFixed(1)}%)`,
      `node  ECharts option:                    ${fmt(option.ms)}`,
      `node  zoom to 10% and re-downsample:     ${fmt(zoom.ms)}`,
      `node  seed groups (4 x 5) mean±std bands: ${fmt(groupBuild.ms)} + downsample ${fmt(groupDown.ms)}`,
      ...kinds,
      // Node's high-water mark over everything above (the data, every line built, smoothed and thinned).
      `node  peak RSS:                          ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
      '',
    ].join('\n'),
  );
}

/** The page side: the same modules as the app, bundled with ECharts for a bare page. */
const PAGE_ENTRY = `
import { use, init } from 'echarts/core';
import { LineChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { buildChartOption, buildSeries } from './renderer/src/compare/chart-option';
import { buildPlot, downsamplePlot, xExtent } from './renderer/src/compare/plot';
use([LineChart, GridComponent, TooltipComponent, LegendComponent, DataZoomComponent, CanvasRenderer]);

const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
async function drawn(chart, apply) {
  const t = performance.now();
  apply();
  // setOption renders synchronously; the frame after it is when the pixels are up.
  await frame();
  return performance.now() - t;
}
window.benchChart = async (runs, budget, repeats) => {
  const options = { xAxis: 'iteration', smoothing: 0.6, groups: null, bandMode: 'std', showMembers: true, logScale: false };
  const el = document.getElementById('chart');
  const compute = [], first = [], zoom = [], raw = [];
  for (let i = 0; i < repeats; i++) {
    const chart = init(el);
    let option;
    const t = performance.now();
    const lines = buildPlot(runs, options);
    option = buildChartOption(downsamplePlot(lines, budget), { xAxis: 'iteration', logScale: false, extent: xExtent(lines) });
    compute.push(performance.now() - t);
    first.push(await drawn(chart, () => chart.setOption(option)));
    zoom.push(await drawn(chart, () => {
      chart.setOption({ series: buildSeries(downsamplePlot(lines, budget, [4000, 5000])) }, { replaceMerge: ['series'] });
    }));
    chart.dispose();
  }
  const chart = init(el);
  raw.push(await drawn(chart, () => {
    const lines = buildPlot(runs, options);
    chart.setOption(buildChartOption(lines, { xAxis: 'iteration', logScale: false, extent: xExtent(lines) }));
  }));
  chart.dispose();
  const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  return { compute: median(compute), first: median(first), zoom: median(zoom), raw: raw[0] };
};
`;

async function browserFigures(runs: RunSeries[]): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    process.stdout.write(`browser render: skipped, no Chromium at ${CHROMIUM}\n`);
    return;
  }
  const { build } = await import('esbuild');
  const bundle = await build({
    stdin: { contents: PAGE_ENTRY, resolveDir: root, loader: 'js' },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    minify: true,
    logLevel: 'silent',
  });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: CHART_WIDTH + 40, height: 600 } });
    await page.setContent(`<div id="chart" style="width:${CHART_WIDTH}px;height:420px"></div>`);
    await page.addScriptTag({ content: bundle.outputFiles[0].text });
    const figures = await page.evaluate(([data, budget, repeats]) => (globalThis as unknown as {
      benchChart: (r: unknown, b: number, n: number) => Promise<{ compute: number; first: number; zoom: number; raw: number }>;
    }).benchChart(data, budget, repeats), [runs, BUDGET, REPEATS] as const);
    process.stdout.write(
      [
        `chromium smooth + downsample + option:    ${fmt(figures.compute)}`,
        `chromium draw the first view:             ${fmt(figures.first)}  (first paint: ${fmt(figures.compute + figures.first)})`,
        `chromium zoom to 10%, re-downsample, draw: ${fmt(figures.zoom)}`,
        `chromium all ${RUNS * POINTS} raw points drawn, no downsampling: ${fmt(figures.raw)}`,
        '',
      ].join('\n'),
    );
  } finally {
    await browser.close();
  }
}

export const USAGE = `chart-render: Compare's chart of 20 runs x 10,000 points, built in Node and drawn in Chromium, first view and zoom (under a minute on 2 cores); takes no arguments`;

export default async function benchChartRender(): Promise<void> {
  const started = performance.now();
  const runs = syntheticRuns();
  nodeFigures(runs);
  await browserFigures(runs);
  process.stdout.write(`(benchmark took ${((performance.now() - started) / 1000).toFixed(1)} s; figures on a busy machine run high)\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchChartRender();
}
