// End to end: issue 21, point 13. "download started" clears, the page has a favicon, and an
// error page speaks of the app, not of internal API method names.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_METHODS } from '../../preload/contract';
import { hasChromium, openWorkbench, type OpenWorkbench, type Serve } from './harness';

let serve: Serve;
let page: Page;
let wb: OpenWorkbench;

describe.skipIf(!hasChromium)('small things', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 4 }, browser: { viewport: { width: 1280, height: 900 }, acceptDownloads: true } });
    ({ serve, page } = wb);
  });

  afterAll(async () => {
    await wb?.close();
  });

  it('clears "download started" after the download began', async () => {
    await page.goto(serve.at('/runs'));
    await page.locator('.run-row').first().waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.export-panel button').click()]);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const note = page.locator('.export-panel', { hasText: 'download started' });
    expect(await note.count()).toBe(1);
    await expect.poll(() => note.count(), { timeout: 15_000 }).toBe(0);
  });

  it('has a favicon', async () => {
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(href).toMatch(/^data:image\/svg\+xml,/);
  });

  it('names no internal API method on an error page', async () => {
    await page.goto(serve.at('/runs/9999'));
    const error = page.locator('.run-view .error');
    await error.waitFor();
    const text = await error.innerText();
    expect(text).toContain('unknown run 9999');
    for (const method of API_METHODS) expect(text).not.toContain(method);
  });
});
