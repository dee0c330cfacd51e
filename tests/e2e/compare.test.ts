// End to end: the Compare view in Debian's Chromium against `turnlab serve`. Two runs that
// differ only by their seed, next to a fixture run; the exported CSV must equal what the
// chart draws, which the test recomputes from the stored series with the same plot model.
import { readFileSync, statSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import type { MetricPoint } from '../../main/store/types';
import { makeFixtureDataDir, type FixtureDataDir, type TempDir } from '../helpers/fixtures';
import { buildPlot } from '../../renderer/src/compare/plot';
import { ensureBuilt, hasChromium, launchBrowser, startServe, type OpenBrowser, type Serve } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';

const METRIC = 'train/reward/mean';
const ITERATIONS = 30;

let fixture: FixtureDataDir;
let shots: TempDir;
let serve: Serve;
let url: string;
let browser: OpenBrowser;
let page: Page;
const seedRuns: number[] = [];
const rewards = new Map<number, Array<{ iteration: number; value: number | null; wallTime: number }>>();

/** Two runs of one config that differ only in trainer.seed (and the train start seed that follows it). */
function addSeedPair(dataDir: string): void {
  const store = openStore(dataDir);
  try {
    for (const seed of [11, 12]) {
      const config = {
        trainer: { experiment_name: 'bandit-seeds', seed, total_training_steps: ITERATIONS },
        model: { n_layer: 1, d_model: 32 },
        es_manager: { train: { start_seed: seed, env_groups: 4 }, val: { start_seed: 123 } },
      };
      const run = store.runs.create({ name: `bandit-seed-${seed}`, config, seed, envTags: ['bandit'], algorithm: 'grpo', status: 'completed' });
      const points: MetricPoint[] = [];
      for (let it = 1; it <= ITERATIONS; it++) {
        const wallTime = 1_750_000_000_000 + seed * 1e6 + it * 1500;
        const value = seed === 12 && it === 7 ? null : Math.sin(it / 3 + seed) + it / 10;
        points.push({ runId: run.id, name: METRIC, iteration: it, value, wallTime });
        points.push({ runId: run.id, name: 'train/loss/policy', iteration: it, value: 1 / it, wallTime });
      }
      store.metrics.insert(points);
      seedRuns.push(run.id);
      rewards.set(run.id, store.metrics.series(run.id, METRIC));
    }
  } finally {
    store.close();
  }
}

describe.skipIf(!hasChromium)('Compare view in a browser', () => {
  beforeAll(async () => {
    ensureBuilt();
    fixture = makeFixtureDataDir({ iterations: 5 });
    addSeedPair(fixture.dir);
    shots = screenshotFolder();
    serve = await startServe(fixture.dir);
    url = serve.url;
    browser = await launchBrowser({ viewport: { width: 1280, height: 1000 }, acceptDownloads: true });
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    fixture?.cleanup();
    shots?.cleanup();
  });

  it('overlays runs, diffs configs, groups seeds and exports exactly what is plotted', async () => {
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // From the Runs view: select the seed pair, press Compare.
    await page.goto(url);
    for (const id of seedRuns) await page.locator(`.run-row[data-run-id="${id}"] .select-run`).check();
    await page.locator('.compare-button').click();
    await page.locator('.compare-chart canvas').first().waitFor();
    expect(decodeURIComponent(new URL(page.url()).hash)).toContain(`#/compare?runs=${seedRuns.join(',')}`);

    const first = fixture.runs[0].run.id;
    const ids = [...seedRuns, first];
    const address = new URL(url);
    address.hash = `#/compare?runs=${ids.join(',')}&metric=${encodeURIComponent(METRIC)}`;
    await page.goto(address.toString());
    await page.locator('.compare-chart canvas').first().waitFor();
    expect(await page.locator('.run-pick:checked').count()).toBe(3);
    await expect.poll(() => page.locator('.metric-select').inputValue()).toBe(METRIC);

    // Only differing keys: the seed pair and the fixture run share no config, so seed keys differ.
    const keys = () => page.locator('.config-table td.key').allInnerTexts();
    const differing = await keys();
    expect(differing).toContain('trainer.seed');
    // Unpick the fixture run: the seed pair differs only in its seeds.
    await page.locator(`.run-pick[data-run-id="${first}"]`).click();
    await expect.poll(keys).toEqual(['es_manager.train.start_seed', 'trainer.seed']);
    expect(page.url()).toContain(`runs=${seedRuns.join(',')}`);
    await page.locator('.differing-toggle').uncheck();
    await expect.poll(async () => (await keys()).length).toBeGreaterThan(2);
    expect(await keys()).toContain('model.d_model');
    await page.locator('.differing-toggle').check();
    await expect.poll(async () => (await keys()).length).toBe(2);

    // Every run at 1024 px: the config table scrolls inside its panel; the page keeps its width and
    // the key column stays readable (it was squeezed to three letters a line).
    const every = fixture.runs.map((r) => r.run.id).concat(seedRuns);
    address.hash = `#/compare?runs=${every.join(',')}&metric=${encodeURIComponent(METRIC)}`;
    await page.setViewportSize({ width: 1024, height: 1000 });
    await page.goto(address.toString());
    await expect.poll(() => page.locator('.config-table thead th').count()).toBe(every.length + 1);
    const pageWidth = () => page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
    expect(await pageWidth()).toBeLessThanOrEqual(1024);
    expect((await page.locator('.config-table td.key').first().boundingBox())!.width).toBeGreaterThanOrEqual(200);
    await page.setViewportSize({ width: 1280, height: 1000 });
    address.hash = `#/compare?runs=${ids.join(',')}&metric=${encodeURIComponent(METRIC)}`;
    await page.goto(address.toString());
    await page.locator(`.run-pick[data-run-id="${first}"]`).click();
    await expect.poll(keys).toEqual(['es_manager.train.start_seed', 'trainer.seed']);

    // Summary: final and best of the reward for each run.
    await expect.poll(() => page.locator('.summary-table tbody tr').count()).toBe(2);
    // Best is the highest reward until "lower is better" is picked for the metric; unticking
    // the metric takes its column away.
    const headers = () => page.locator('.summary-table thead th').allInnerTexts();
    const column = (await headers()).findIndex((text) => text.includes(METRIC));
    expect(column).toBeGreaterThan(0);
    const cell = page.locator('.summary-table tbody tr').first().locator('td').nth(column);
    const values = rewards.get(seedRuns[0])!.flatMap((p) => (p.value === null ? [] : [p.value]));
    const shown = (value: number) => String(Number(value.toPrecision(5)));
    await expect.poll(() => cell.innerText()).toContain(`best ${shown(Math.max(...values))}`);
    await page.locator('.summary-table thead th').nth(column).locator('select').selectOption('min');
    await expect.poll(() => cell.innerText()).toContain(`best ${shown(Math.min(...values))}`);
    const columns = (await headers()).length;
    await page.locator('.summary-metrics summary').click();
    await page.locator(`.summary-metrics input[value="${METRIC}"]`).uncheck();
    await expect.poll(async () => (await headers()).length).toBe(columns - 1);
    await page.locator(`.summary-metrics input[value="${METRIC}"]`).check();
    await expect.poll(async () => (await headers()).length).toBe(columns);

    // EMA and seed grouping, then export.
    await page.locator('.smoothing-amount').fill('0.6');
    await expect.poll(() => page.locator('.controls').innerText()).toContain('smoothing 0.60');
    await page.locator('.group-toggle').check();
    await page.locator('.members-toggle').waitFor();

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.export-plotted').click()]);
    expect(download.suggestedFilename()).toBe(`turnlab-compare-train_reward_mean-runs-${seedRuns.join('-')}.csv`);
    const csv = readFileSync((await download.path())!, 'utf8');
    const rows = parse(csv, { columns: true }) as Array<Record<string, string>>;

    const expected = buildPlot(
      seedRuns.map((id) => ({ runId: id, label: '', points: rewards.get(id)! })),
      { xAxis: 'iteration', smoothing: 0.6, groups: [{ label: '', runIds: seedRuns }], bandMode: 'std', showMembers: true, logScale: false },
    );
    const group = rows.filter((r) => r.kind === 'group_mean');
    expect(group).toHaveLength(ITERATIONS);
    // The smoothing is named in the legend label and in its own column; the raw mean comes too.
    expect(group[0].smoothing).toBe('0.6');
    expect(group[0].series).toMatch(/\(EMA 0\.60\)$/);
    const rawMean = rows.filter((r) => r.kind === 'raw_group_mean');
    expect(rawMean).toHaveLength(ITERATIONS);
    expect(rawMean[0].smoothing).toBe('0');
    expect(group[0].run_ids).toBe(seedRuns.join(' '));
    group.forEach((row, i) => {
      expect(Number(row.iteration)).toBe(i + 1);
      expect(Number(row.value)).toBeCloseTo(expected[0].y[i]!, 9);
      expect(Number(row.upper)).toBeCloseTo(expected[0].upper![i]!, 9);
    });
    // Iteration 7 has one member only: a zero-width band, said in n.
    expect(group[6].n).toBe('1');
    const members = rows.filter((r) => r.kind === 'member_run');
    expect(members).toHaveLength(2 * ITERATIONS);
    expect(members.find((r) => r.run_ids === String(seedRuns[1]) && r.iteration === '7')!.value).toBe('');

    const shot = await saveScreenshot(page, shots.dir, 'compare', { fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(1000);

    // Hiding the member runs removes them from the export too.
    await page.locator('.members-toggle').uncheck();
    const [second] = await Promise.all([page.waitForEvent('download'), page.locator('.export-plotted').click()]);
    const again = parse(readFileSync((await second.path())!, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(new Set(again.map((r) => r.kind))).toEqual(new Set(['group_mean', 'raw_group_mean']));

    // Time since start on the x axis, log scale: non-positive means become gaps, x starts at 0.
    await page.locator('.x-axis-select').selectOption('relative');
    await page.locator('.log-toggle').check();
    const [third] = await Promise.all([page.waitForEvent('download'), page.locator('.export-plotted').click()]);
    const timed = parse(readFileSync((await third.path())!, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(timed[0]).toMatchObject({ x_axis: 'relative', x: '0', iteration: '1' });
    expect(Number(timed[1].x)).toBe(1.5);
    expect(timed.every((r) => r.value === '' || Number(r.value) > 0)).toBe(true);
    expect(timed.some((r) => r.value === '')).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
