// End to end: several metric panels at once in Compare (issue 21, point 4). Panels are added,
// changed and removed, live in the address, sit side by side at 1440 px and one under the
// other at 1024 px, and "Export what is plotted" writes every panel: the smoothed curve and the
// raw one under it, the smoothing named in the series and its own column, the runs by name.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import type { RunRecord } from '../../main/store/types';
import type { TempDir } from '../helpers/fixtures';
import { buildPlot } from '../../renderer/src/compare/plot';
import { hasChromium, openWorkbench, type OpenWorkbench, type Serve } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';

const REWARD = 'train/reward/mean';

let shots: TempDir;
let serve: Serve;
let page: Page;
let wb: OpenWorkbench;
let runs: RunRecord[];

/** The metric of each panel, in order, as the page shows them. */
const shownPanels = () => page.locator('.panel-chart').evaluateAll((els) => els.map((el) => el.getAttribute('data-metric')));
/** The metrics the address lists, in order. */
const addressPanels = () => new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '').getAll('metric');

/** How wide the page is, to see that nothing runs past the window. */
const pageWidth = () =>
  page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);

async function boxes(): Promise<Array<{ x: number; y: number; width: number; height: number }>> {
  const all = await page.locator('.panel-chart').all();
  return Promise.all(all.map(async (panel) => (await panel.boundingBox())!));
}

describe.skipIf(!hasChromium)('Compare with several metric panels', () => {
  beforeAll(async () => {
    shots = screenshotFolder();
    wb = await openWorkbench({ fixture: { iterations: 8 }, browser: { viewport: { width: 1440, height: 900 }, acceptDownloads: true } });
    ({ serve, page } = wb);
    runs = [wb.fixture.runs[0].run, wb.fixture.runs[1].run];
  });

  afterAll(async () => {
    await wb?.close();
  });

  it('adds, changes and removes panels, each kept in the address', async () => {
    await page.goto(serve.at(`/compare?runs=${runs.map((r) => r.id).join(',')}&metric=${encodeURIComponent(REWARD)}&smooth=0.6`));
    await page.locator('.panel-chart canvas').first().waitFor();
    expect(await shownPanels()).toEqual([REWARD]);
    // One panel has nothing to remove.
    expect(await page.locator('.remove-panel').count()).toBe(0);

    // A new panel opens on the next headline metric: validation success first.
    await page.locator('.add-panel').click();
    await expect.poll(shownPanels).toHaveLength(2);
    const [, second] = await shownPanels();
    expect(second).toMatch(/^val\/[a-z]+\/success$/);
    await page.locator('.add-panel').click();
    await expect.poll(shownPanels).toHaveLength(3);
    const three = (await shownPanels()) as string[];
    expect(three[2]).toMatch(/^val\/[a-z]+\/success$/);
    expect(addressPanels()).toEqual(three);
    expect(await page.locator('.panel-chart canvas').count()).toBeGreaterThanOrEqual(3);

    // Two side by side, the third under them; nothing wider than the window.
    const [a, b, c] = await boxes();
    expect(b.y).toBe(a.y);
    expect(b.x).toBeGreaterThan(a.x + a.width - 1);
    expect(c.y).toBeGreaterThan(a.y + a.height - 1);
    expect(await pageWidth()).toBeLessThanOrEqual(1440);
    await saveScreenshot(page, shots.dir, 'compare-panels-1440', { fullPage: true });

    // The first panel takes the third's metric: the two swap.
    const picker = page.locator('.panel-chart').nth(0).locator('.metric-select');
    await picker.click();
    await picker.fill(three[2]);
    await page.locator(`.metric-options:visible .metric-option[data-metric="${three[2]}"]`).click();
    await expect.poll(shownPanels).toEqual([three[2], three[1], three[0]]);
    expect(addressPanels()).toEqual([three[2], three[1], three[0]]);

    await page.locator('.panel-chart').nth(1).locator('.remove-panel').click();
    await expect.poll(shownPanels).toEqual([three[2], three[0]]);
    expect(addressPanels()).toEqual([three[2], three[0]]);

    // The top Compare link brings the panels back after another view.
    const link = page.url();
    await page.locator('nav .tab', { hasText: 'Runs' }).click();
    await page.locator('.run-row').first().waitFor();
    await page.locator('nav .compare-tab').click();
    await expect.poll(shownPanels).toEqual([three[2], three[0]]);
    expect(page.url()).toBe(link);

    // So does the address alone, in a fresh page.
    await page.goto(serve.at('/runs'));
    await page.goto(link);
    await page.locator('.panel-chart canvas').first().waitFor();
    await expect.poll(shownPanels).toEqual([three[2], three[0]]);
    const selected = async () => Promise.all((await page.locator('.panel-chart .metric-select').all()).map((select) => select.inputValue()));
    await expect.poll(selected).toEqual([three[2], three[0]]);
  });

  it('stacks the panels at 1024 px', async () => {
    await page.setViewportSize({ width: 1024, height: 700 });
    await expect.poll(async () => {
      const [a, b] = await boxes();
      return b.y > a.y + a.height - 1 && b.x === a.x;
    }).toBe(true);
    expect(await pageWidth()).toBeLessThanOrEqual(1024);
    // A summary of every metric is wider than the window: it scrolls in its panel, not the page.
    await page.locator('details.summary-metrics summary').click();
    for (const box of await page.locator('details.summary-metrics input[type=checkbox]').all()) if (!(await box.isChecked())) await box.check();
    await expect.poll(() => page.locator('.summary-table thead th').count()).toBeGreaterThan(4);
    expect(await pageWidth()).toBeLessThanOrEqual(1024);
    await saveScreenshot(page, shots.dir, 'compare-panels-1024', { fullPage: true });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('exports every panel, smoothed and raw, naming the smoothing and the runs', async () => {
    const panels = (await shownPanels()) as string[];
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.export-plotted').click()]);
    expect(download.suggestedFilename()).toBe(`turnlab-compare-2-metrics-runs-${runs.map((r) => r.id).join('-')}.csv`);
    const rows = parse(readFileSync((await download.path())!, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect([...new Set(rows.map((r) => r.metric))]).toEqual(panels);

    const store = openStore(wb.fixture.dir);
    try {
      for (const metric of panels) {
        for (const run of runs) {
          const points = store.metrics.series(run.id, metric);
          const ofRun = rows.filter((r) => r.metric === metric && r.run_ids === String(run.id));
          if (points.length === 0) {
            expect(ofRun).toEqual([]);
            continue;
          }
          const smoothed = ofRun.filter((r) => r.kind === 'run');
          const raw = ofRun.filter((r) => r.kind === 'raw_run');
          expect(smoothed[0]).toMatchObject({ smoothing: '0.6', run_names: run.name });
          expect(smoothed[0].series).toMatch(new RegExp(`^#${run.id} ${run.name} .*\\(EMA 0\\.60\\)$`));
          // The raw curve is not smoothed, so its name says raw, not the EMA.
          expect(raw[0]).toMatchObject({ smoothing: '0', series: smoothed[0].series.replace(/\(EMA 0\.60\)$/, '(raw)') });
          const [line, rawLine] = buildPlot([{ runId: run.id, label: '', points }], {
            xAxis: 'iteration', smoothing: 0.6, groups: null, bandMode: 'std', showMembers: true, logScale: false,
          });
          expect(smoothed.map((r) => Number(r.value))).toEqual(line.y.map((v) => expect.closeTo(v!, 9)));
          expect(raw.map((r) => Number(r.value))).toEqual(points.map((p) => p.value));
          expect(rawLine.y).toEqual(points.map((p) => p.value));
        }
      }
    } finally {
      store.close();
    }
  });

  it('says under a panel which runs do not log its metric, rather than drawing empty axes', async () => {
    const ids = runs.map((r) => r.id);
    await page.goto(serve.at(`/compare?runs=${ids.join(',')}&metric=no/such/metric`));
    await expect.poll(() => page.locator('.panel-chart .metric-missing').innerText().catch(() => '')).toBe(
      `Runs ${ids.map((id) => `#${id}`).join(', ')} do not log no/such/metric: pick a metric they log.`,
    );
    await page.goto(serve.at(`/compare?runs=${ids.join(',')}&metric=${encodeURIComponent(REWARD)}`));
    await page.locator('.panel-chart canvas').first().waitFor();
    expect(await page.locator('.metric-missing').count()).toBe(0);
    // A log scale cannot draw a value of 0 or below: the panel says whose it leaves out.
    await page.goto(serve.at(`/compare?runs=${ids.join(',')}&metric=train/loss/policy&log=1`));
    await expect.poll(() => page.locator('.panel-chart .metric-missing').innerText().catch(() => '')).toMatch(/^The log scale leaves out values of 0 or below: runs? #\d+.*(entirely|in part)\.$/);
  });
});
