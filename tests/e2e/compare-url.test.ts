// End to end: a comparison lives in its address (issue 21, point 3). The settings come from
// the URL, changes go back into it, the top "Compare" link restores the last comparison after
// visiting other views, and the link opens the same comparison in another browser.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureDataDir } from '../helpers/fixtures';
import { hasChromium, launchBrowser, openWorkbench, type OpenWorkbench, type Serve } from './harness';

let fixture: FixtureDataDir;
let serve: Serve;
let page: Page;
let wb: OpenWorkbench;
let ids: number[];

const METRIC = 'train/reward/mean';

/** What the controls show, to compare against what the address says. */
async function controls(on: Page) {
  return {
    metric: await on.locator('.metric-select').inputValue(),
    smoothing: await on.locator('.ema-slider').inputValue(),
    xAxis: await on.locator('.x-axis-select').inputValue(),
    log: await on.locator('.log-toggle').isChecked(),
    group: await on.locator('.group-toggle').isChecked(),
    band: await on.locator('.band-select').inputValue(),
    members: await on.locator('.members-toggle').isChecked(),
    picked: await on.locator('.run-pick:checked').count(),
  };
}

const EXPECTED = { metric: METRIC, smoothing: '0.6', xAxis: 'relative', log: true, group: true, band: 'minmax', members: false, picked: 2 };

describe.skipIf(!hasChromium)('Compare state in the URL', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 5 }, browser: { viewport: { width: 1440, height: 900 } } });
    ({ fixture, serve, page } = wb);
    ids = [fixture.runs[0].run.id, fixture.runs[2].run.id];
  });

  afterAll(async () => {
    await wb?.close();
  });

  it('reads every setting from the address and writes changes back', async () => {
    const query = `runs=${ids.join(',')}&metric=${encodeURIComponent(METRIC)}&smooth=0.6&x=relative&group=1&band=minmax&members=0&log=1`;
    await page.goto(serve.at(`/compare?${query}`));
    await page.locator('.compare-chart canvas').first().waitFor();
    await expect.poll(() => controls(page)).toEqual(EXPECTED);

    await page.locator('.x-axis-select').selectOption('iteration');
    await expect.poll(() => decodeURIComponent(page.url())).not.toContain('x=relative');
    await page.locator('.x-axis-select').selectOption('relative');
    await expect.poll(() => page.url()).toContain('x=relative');
  });

  it('keeps the comparison when leaving Compare and coming back through the top link', async () => {
    const before = page.url();
    await page.locator('nav .tab', { hasText: 'Runs' }).click();
    await page.locator('.run-row').first().waitFor();
    await page.locator(`.run-row[data-run-id="${ids[0]}"]`).click();
    await page.locator('.metric-chart').first().waitFor();
    await page.locator('nav .compare-tab').click();
    await page.locator('.compare-chart canvas').first().waitFor();
    expect(page.url()).toBe(before);
    await expect.poll(() => controls(page)).toEqual(EXPECTED);
  });

  it('opens the shared link as the same comparison in another browser', async () => {
    const link = await page.locator('.share-link').inputValue();
    expect(link).toBe(page.url());
    expect(link).not.toContain('token');
    const other = await launchBrowser({ viewport: { width: 1024, height: 700 } });
    try {
      // The recipient signs in to their own serve with its token, then opens the link.
      await other.page.goto(serve.url);
      await other.page.locator('.run-row').first().waitFor();
      await other.page.goto(link);
      await other.page.locator('.compare-chart canvas').first().waitFor();
      await expect.poll(() => controls(other.page)).toEqual(EXPECTED);
    } finally {
      await other.close();
    }
  });
});
