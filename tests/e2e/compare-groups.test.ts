// End to end: issue 21, point 5. Two seed groups that differ by learning rate are named by it,
// a rate's band stays within [0, 1], and a time axis reads as time, not 14.831999999999999.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import type { MetricPoint } from '../../main/store/types';
import { hasChromium, openWorkbench, type OpenWorkbench, type Serve } from './harness';

const METRIC = 'val/bandit/success';
let serve: Serve;
let page: Page;
let wb: OpenWorkbench;
const ids: number[] = [];

/** Four runs: lr 0.001 and 0.002, two seeds each; success near 1 with a wide spread. */
function addGroups(dataDir: string): void {
  const store = openStore(dataDir);
  try {
    for (const lr of [0.001, 0.002]) {
      for (const seed of [1, 2]) {
        const config = { trainer: { seed }, actor_rollout_ref: { actor: { optim: { lr } } } };
        const run = store.runs.create({ name: `bandit-lr${lr}-s${seed}`, config, seed, envTags: ['bandit'], algorithm: 'grpo', status: 'completed' });
        const points: MetricPoint[] = [];
        for (let it = 1; it <= 10; it++) {
          // 14.832 s between points, so an unformatted axis would print long decimals.
          points.push({ runId: run.id, name: METRIC, iteration: it, value: seed === 1 ? 1 : 0.5, wallTime: 1_750_000_000_000 + it * 14_832 });
        }
        store.metrics.insert(points);
        ids.push(run.id);
      }
    }
  } finally {
    store.close();
  }
}

describe.skipIf(!hasChromium)('seed groups in Compare', () => {
  beforeAll(async () => {
    wb = await openWorkbench({
      fixture: { iterations: 3 },
      addRuns: addGroups,
      browser: { viewport: { width: 1440, height: 900 }, acceptDownloads: true },
    });
    ({ serve, page } = wb);
  });

  afterAll(async () => {
    await wb?.close();
  });

  it('names groups by the setting that differs and clips a rate band to [0, 1]', async () => {
    await page.goto(serve.at(`/compare?runs=${ids.join(',')}&metric=${encodeURIComponent(METRIC)}&group=1&members=0`));
    await page.locator('.compare-chart canvas').first().waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.export-plotted').click()]);
    const rows = parse(readFileSync((await download.path())!, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect([...new Set(rows.map((r) => r.series))]).toEqual([
      `lr=0.001: 2 seeds (#${ids[0]}, #${ids[1]})`,
      `lr=0.002: 2 seeds (#${ids[2]}, #${ids[3]})`,
    ]);
    // mean 0.75 ± std 0.354 would reach 1.10: the band stops at 1.
    expect(Math.max(...rows.map((r) => Number(r.upper)))).toBe(1);
    expect(Number(rows[0].lower)).toBeCloseTo(0.75 - Math.SQRT1_2 / 2, 9);
  });

  it('summarises each group as mean ± std over its seeds', async () => {
    const groupRows = page.locator('.summary-table tr.group-summary');
    await expect.poll(() => groupRows.count()).toBe(2);
    expect(await groupRows.first().innerText()).toBe(
      `lr=0.001: 2 seeds (#${ids[0]}, #${ids[1]})\tfinal 0.750 ± 0.354 · best 0.750 ± 0.354`,
    );
  });

  it('formats the time since start in the tooltip', async () => {
    await page.locator('.x-axis-select').selectOption('relative');
    const canvas = page.locator('.compare-chart canvas').first();
    const box = (await canvas.boundingBox())!;
    const tooltip = page.locator('.chart-tooltip');
    await expect
      .poll(async () => {
        await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
        return (await tooltip.count()) > 0 && (await tooltip.first().isVisible()) ? (await tooltip.first().innerText()).split('\n')[0] : '';
      })
      .toMatch(/^(\d{1,2}(\.\d)? s|\d+:\d\d)$/);
  });
});
