// End to end: the details a researcher trips on in Compare and the Run view (issue 40, points
// 1, 4 and 5), at 1024 and 1440 px. Six seed runs of a bandit and a fork of the first: Compare
// opens on validation success with a type-ahead metric picker (the Run view's search is the same
// picker), fetches every run's series in one call, names all six runs without paging, keeps a
// rate's axis at 1, shows raw beside smoothed values in the tooltip with one cursor over every
// panel; the Run view's search belongs to one run, the warm start's loss curve is drawn, and a
// fork draws its parent up to the fork.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import type { MetricPoint } from '../../main/store/types';
import { hasChromium, openWorkbench, type OpenWorkbench } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';

const ITERATIONS = 20;
const FORK_AT = 10;
const runIds: number[] = [];
let forkId = 0;
let oneValidationId = 0;
let wb: OpenWorkbench;
let page: Page;

function metricsOf(runId: number, seed: number, from: number): MetricPoint[] {
  const points: MetricPoint[] = [];
  for (let it = from; it <= ITERATIONS; it++) {
    const wallTime = 1_750_000_000_000 + it * 1000;
    const success = Math.min(1, 0.3 + it * 0.04 + (seed % 3) * 0.05);
    points.push({ runId, name: 'actor/entropy', iteration: it, value: 2 - it / 20, wallTime });
    points.push({ runId, name: 'train/reward/mean', iteration: it, value: success * 2 - 1 + Math.sin(it + seed) * 0.3, wallTime });
    points.push({ runId, name: 'train/bandit/success', iteration: it, value: success, wallTime });
    if (it % 5 === 0) points.push({ runId, name: 'val/bandit/success', iteration: it, value: it === ITERATIONS ? 1 : success, wallTime });
  }
  return points;
}

function addRuns(dataDir: string): void {
  const store = openStore(dataDir);
  try {
    for (let seed = 0; seed < 6; seed++) {
      const config = { trainer: { experiment_name: 'bandit-seeds', seed, total_training_steps: ITERATIONS } };
      const run = store.runs.create({ name: `bandit-s${seed}`, config, seed, envTags: ['bandit'], algorithm: 'grpo', status: 'completed' });
      store.metrics.insert(metricsOf(run.id, seed, 1));
      // The warm start's loss curve, as the trainer stores it: the steps before iteration 1.
      store.metrics.insert([-4, -3, -2, -1, 0].map((it) => ({ runId: run.id, name: 'warm_start/loss', iteration: it, value: 3 + it / 2, wallTime: 1_750_000_000_000 })));
      runIds.push(run.id);
    }
    const fork = store.runs.create({
      name: 'bandit-s0-fork',
      config: { trainer: { experiment_name: 'bandit-seeds', seed: 0, total_training_steps: ITERATIONS } },
      seed: 0,
      envTags: ['bandit'],
      algorithm: 'grpo',
      status: 'completed',
      parentRunId: runIds[0],
      parentIteration: FORK_AT,
    });
    store.metrics.insert(metricsOf(fork.id, 0, FORK_AT + 1));
    forkId = fork.id;
    // A run validated only before training (test_freq past its iterations), with a warm start.
    const once = store.runs.create({ name: 'bandit-one-val', config: { trainer: { seed: 9, total_training_steps: ITERATIONS } }, seed: 9, envTags: ['bandit'], algorithm: 'grpo', status: 'completed' });
    store.metrics.insert(metricsOf(once.id, 9, 1).filter((point) => !point.name.startsWith('val/')));
    store.metrics.insert([{ runId: once.id, name: 'val/bandit/success', iteration: 0, value: 0.4, wallTime: 1_750_000_000_000 }]);
    store.metrics.insert([-4, -3, -2, -1, 0].map((it) => ({ runId: once.id, name: 'warm_start/loss', iteration: it, value: 3 + it / 2, wallTime: 1_750_000_000_000 })));
    oneValidationId = once.id;
  } finally {
    store.close();
  }
}

const pageWidth = () =>
  page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
const optionNames = () => page.locator('.metric-options:visible .metric-option').evaluateAll((items) => items.map((i) => i.getAttribute('data-metric')));

describe.skipIf(!hasChromium)('chart details', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 2 }, addRuns, browser: { viewport: { width: 1440, height: 900 } } });
    page = wb.page;
  });

  afterAll(async () => {
    await wb?.close();
  });

  describe.each([1024, 1440])('at %i px', (width) => {
    it('opens Compare on validation success, one series call, a searchable picker, six runs named, rates capped at 1', async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.evaluate(() => (globalThis as unknown as { localStorage: { clear(): void } }).localStorage.clear());
      const apiCalls: string[] = [];
      const onRequest = (request: { url(): string }) => {
        if (/\/api\//.test(request.url())) apiCalls.push(new URL(request.url()).pathname);
      };
      page.on('request', onRequest);
      await page.goto(wb.serve.at(`/compare?runs=${runIds.join(',')}`));
      await page.locator('.compare-chart canvas').first().waitFor();
      await expect.poll(() => page.locator('.metric-select').first().inputValue()).toBe('val/bandit/success');
      // Every run's series of every panel and summary metric in one call, not one per run and metric.
      await expect.poll(() => page.locator('.summary-table tbody tr').count()).toBe(6);
      page.off('request', onRequest);
      // Six runs' names and series in two calls, not one per run and metric (17 before).
      expect(apiCalls.filter((path) => /^\/api\/(compareSeries|metricNames|metricSeries)$/.test(path))).toEqual([]);
      expect(apiCalls.filter((path) => path === '/api/compareMetricNames')).toHaveLength(1);
      expect(apiCalls.filter((path) => path === '/api/compareSeriesBatch')).toHaveLength(1);

      // All six runs in the legend, none paged away, each inside the window.
      const legend = page.locator('.panel-chart').first().locator('.legend-item');
      expect(await legend.count()).toBe(6);
      for (const item of await legend.all()) {
        const box = (await item.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(width);
      }
      // A success rate's axis ends at 1, not at a nice number past it.
      await expect.poll(() => page.locator('.compare-chart').first().getAttribute('data-y-max')).toBe('1');

      // The picker: words, prefix and regex; a bad regex says why; Enter picks.
      const picker = page.locator('.panel-chart').first().locator('.metric-select');
      await picker.click();
      await picker.fill('succ');
      await expect.poll(optionNames).toEqual(['train/bandit/success', 'val/bandit/success']);
      const mode = page.locator('.panel-chart').first().locator('.match-mode');
      await mode.selectOption('prefix');
      await picker.fill('train/');
      await expect.poll(optionNames).toEqual(['train/bandit/success', 'train/reward/mean']);
      await mode.selectOption('regex');
      await picker.fill('(');
      await expect.poll(() => page.locator('.picker-problem:visible').innerText()).toMatch(/not a regular expression/);
      await picker.fill('^train/.*success$');
      await expect.poll(optionNames).toEqual(['train/bandit/success']);
      await picker.press('Enter');
      await expect.poll(() => picker.inputValue()).toBe('train/bandit/success');
      expect(decodeURIComponent(page.url())).toContain('metric=train/bandit/success');
      await mode.selectOption('words');

      // Two panels: smoothing on, hovering one shows raw beside smoothed in both (one cursor).
      await page.locator('.add-panel').click();
      await expect.poll(() => page.locator('.panel-chart canvas').count()).toBeGreaterThanOrEqual(2);
      await page.locator('.smoothing-amount').fill('0.6');
      const chart = page.locator('.compare-chart').first();
      const box = (await chart.boundingBox())!;
      await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5);
      await expect.poll(() => page.locator('.chart-tooltip:visible').count()).toBeGreaterThanOrEqual(2);
      expect(await page.locator('.chart-tooltip:visible').first().innerText()).toMatch(/\(EMA 0\.60\): [-\d.]+ \(raw [-\d.]+\)/);
      expect(await pageWidth()).toBeLessThanOrEqual(width);
      await saveScreenshot(page, screenshotFolder().dir, `chart-details-compare-${width}`, { fullPage: true });
    });

    it('keeps the Run view search per run, offers recent picks first, and draws a fork on its parent', async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(wb.serve.at(`/runs/${runIds[1]}`));
      await page.locator('.headline-charts .metric-chart').first().waitFor();
      const search = page.locator('.metric-search');
      await search.click();
      // The metric picked in Compare comes first, marked recent.
      await expect.poll(async () => (await optionNames())[0]).toBe('train/bandit/success');
      await search.fill('entropy');
      await expect.poll(() => page.locator('.headline-charts').count()).toBe(0);
      await page.keyboard.press('Escape');
      // The warm start's loss curve is drawn with the run's metrics.
      await page.locator('.metric-search').fill('warm');
      await expect.poll(() => page.locator('.metric-group [data-metric="warm_start/loss"] canvas').count()).toBe(1);
      await page.locator('.metric-search').fill('entropy');

      await page.goto(wb.serve.at(`/runs/${forkId}`));
      await page.locator('.headline-charts .metric-chart').first().waitFor();
      expect(await page.locator('.metric-search').inputValue()).toBe('');
      const val = page.locator('.headline-charts [data-chart="val-success"]');
      await expect.poll(() => val.getAttribute('data-parent-run')).toBe(String(runIds[0]));
      await expect.poll(() => val.getAttribute('data-y-max')).toBe('1');
      // Back on the first run, its own search is still there.
      await page.goto(wb.serve.at(`/runs/${runIds[1]}`));
      await expect.poll(() => page.locator('.metric-search').inputValue()).toBe('entropy');
      await page.locator('.metric-search').fill('');
      expect(await pageWidth()).toBeLessThanOrEqual(width);
    });

    it("spans the run's iterations on every chart, a validation logged once among them, the warm start on its own", async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(wb.serve.at(`/runs/${oneValidationId}`));
      const val = page.locator('.headline-charts [data-chart="val-success"]');
      const train = page.locator('.headline-charts [data-chart="train-success"]');
      await expect.poll(() => val.getAttribute('data-x-max')).toBe(String(ITERATIONS));
      expect([await val.getAttribute('data-x-min'), await train.getAttribute('data-x-min'), await train.getAttribute('data-x-max')]).toEqual(['0', '0', String(ITERATIONS)]);
      await page.locator('.metric-search').fill('warm');
      const warm = page.locator('.metric-group [data-metric="warm_start/loss"]');
      await expect.poll(() => warm.getAttribute('data-x-min')).toBe('-4');
      expect(await warm.getAttribute('data-x-max')).toBe('0');
      await page.locator('.metric-search').fill('');
      // The tooltip names the iteration and stays inside the page, from the left column too.
      const canvas = train.locator('canvas').first();
      const box = (await canvas.boundingBox())!;
      const tooltip = page.locator('.chart-tooltip:visible').first();
      await expect
        .poll(async () => {
          await page.mouse.move(box.x + box.width * 0.15, box.y + box.height / 2);
          return (await tooltip.count()) > 0 ? (await tooltip.innerText()).split('\n')[0] : '';
        })
        .toMatch(/^iteration \d+$/);
      const shown = (await tooltip.boundingBox())!;
      expect(shown.x).toBeGreaterThanOrEqual(0);
      expect(shown.x + shown.width).toBeLessThanOrEqual(width);
      // A fork's charts span its parent's iterations before the fork and its own after.
      await page.goto(wb.serve.at(`/runs/${forkId}`));
      await expect.poll(() => val.getAttribute('data-x-min')).toBe('1');
      expect(await val.getAttribute('data-x-max')).toBe(String(ITERATIONS));
    });
  });
});
