// End to end: user text in chart tooltips is text, never markup (issue 16.11). A run named as
// an HTML image with an onerror handler is compared with another; hovering the chart must show
// the name literally and run nothing.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import type { MetricPoint } from '../../main/store/types';
import { hasChromium, openWorkbench, type OpenWorkbench, type Serve } from './harness';

const HOSTILE = '<img src=x onerror="globalThis.__injected=1">';
const METRIC = 'train/reward/mean';

let serve: Serve;
let page: Page;
let wb: OpenWorkbench;
let hostileId: number;

describe.skipIf(!hasChromium)('user text in the browser', () => {
  beforeAll(async () => {
    wb = await openWorkbench({
      fixture: { iterations: 5 },
      addRuns: (dir) => {
        const store = openStore(dir);
        try {
          const run = store.runs.create({ name: HOSTILE, config: {}, seed: 1, envTags: ['bandit'], algorithm: 'grpo', status: 'completed' });
          const points: MetricPoint[] = [];
          for (let it = 1; it <= 20; it++) points.push({ runId: run.id, name: METRIC, iteration: it, value: it / 20, wallTime: 1e12 + it });
          store.metrics.insert(points);
          hostileId = run.id;
        } finally {
          store.close();
        }
      },
      browser: { viewport: { width: 1280, height: 900 } },
    });
    ({ serve, page } = wb);
  });

  afterAll(async () => {
    await wb?.close();
  });

  it('shows a run name holding HTML as text in the comparison tooltip', async () => {
    await page.goto(serve.at(`/compare?runs=${hostileId}&metric=${encodeURIComponent(METRIC)}`));
    const canvas = page.locator('.compare-chart canvas').first();
    await canvas.waitFor();
    const box = (await canvas.boundingBox())!;
    const tooltip = page.locator('.chart-tooltip');
    await expect
      .poll(async () => {
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        return (await tooltip.count()) > 0 && (await tooltip.first().isVisible()) ? tooltip.first().innerText() : '';
      })
      .toContain(HOSTILE);
    expect(await tooltip.first().locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __injected?: number }).__injected)).toBeUndefined();
  });

  it('shows it as text in the run view too', async () => {
    await page.goto(serve.at(`/runs/${hostileId}`));
    await page.locator('.metric-chart canvas').first().waitFor();
    expect(await page.locator('h2').innerText()).toContain(HOSTILE);
    expect(await page.locator('.run-view img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __injected?: number }).__injected)).toBeUndefined();
  });
});
