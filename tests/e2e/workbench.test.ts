// End to end: `turnlab serve` as a real process, Debian's Chromium driven by playwright-core.
import { statSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { makeFixtureDataDir, type FixtureDataDir, type TempDir } from '../helpers/fixtures';
import { ensureBuilt, hasChromium, launchBrowser, startServe, type OpenBrowser, type Serve } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';

let fixture: FixtureDataDir;
// Screenshots are kept in test-results/screenshots/ (or TURNLAB_E2E_SHOTS) to look at.
let shots: TempDir;
let serve: Serve;
let url: string;
let browser: OpenBrowser;
let page: Page;

describe.skipIf(!hasChromium)('workbench in a browser against turnlab serve', () => {
  beforeAll(async () => {
    ensureBuilt();
    fixture = makeFixtureDataDir({ iterations: 5 });
    shots = screenshotFolder();
    serve = await startServe(fixture.dir);
    url = serve.url;
    browser = await launchBrowser({ viewport: { width: 1280, height: 900 } });
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    fixture?.cleanup();
    shots?.cleanup();
  });

  it('prints one URL line with the token', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32,}$/);
  });

  it('shows the runs table, then a run with charts, config and checkpoints', async () => {
    await page.goto(url);
    const rows = page.locator('.run-row');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(fixture.runs.length);
    await expect.poll(() => page.locator('.runs-table').innerText()).toContain('fork of #1');
    // The token leaves the address bar once the page has it.
    expect(new URL(page.url()).searchParams.has('token')).toBe(false);

    const first = fixture.runs[0].run;
    await page.locator(`.run-row[data-run-id="${first.id}"]`).click();
    await page.locator('.metric-chart canvas').first().waitFor();
    expect(await page.locator('h2').innerText()).toContain(first.name);
    const sections = await page.locator('.metric-group').evaluateAll((els) => els.map((el) => el.getAttribute('data-section')));
    expect(sections).toEqual(expect.arrayContaining(['train', 'val']));
    expect(await page.locator('.headline-charts .chart-title').allInnerTexts()).toEqual(['validation success', 'train success']);
    expect(await page.locator('.config pre').innerText()).toContain(':');
    expect(await page.locator('.checkpoints tbody tr').count()).toBe(fixture.runs[0].checkpoints.length);

    const shot = await saveScreenshot(page, shots.dir, 'run');
    expect(statSync(shot).size).toBeGreaterThan(1000);
  });

  it('shows a failed run with its error text in full, after a reload without the token in the URL', async () => {
    const failed = fixture.runs.find((r) => r.run.status === 'failed')!.run;
    await page.goto(serve.at(`/runs/${failed.id}`));
    await page.reload();
    await page.locator('.run-error pre').waitFor();
    expect(await page.locator('.run-error pre').innerText()).toBe(failed.error);
  });

  it('keeps polling a running run until it finishes', async () => {
    const target = fixture.runs[2].run;
    const store = openStore(fixture.dir);
    try {
      store.runs.update(target.id, { status: 'running' });
      await page.goto(serve.at(`/runs/${target.id}`));
      await page.locator('.live').waitFor();
      store.runs.update(target.id, { status: 'completed' });
      await page.locator('.live').waitFor({ state: 'detached' });
      expect(await page.locator('.bar .status').innerText()).toBe('completed');
    } finally {
      store.close();
    }
  });

  it('stops on SIGINT with exit code 0', async () => {
    expect(await serve.stop()).toBe(0);
  });
});
