// End to end: axe-core on every view of the workbench (issue 21: no serious or critical
// violation anywhere), at the README's window size; the screenshots it takes are the README's.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureDataDir, type TempDir } from '../helpers/fixtures';
import { seriousViolations as seriousOn } from './axe';
import { hasChromium, openWorkbench, type OpenWorkbench, type Serve } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';

let fixture: FixtureDataDir;
let shots: TempDir;
let serve: Serve;
let page: Page;
let wb: OpenWorkbench;

const seriousViolations = () => seriousOn(page);

describe.skipIf(!hasChromium)('accessibility of every view', () => {
  beforeAll(async () => {
    shots = screenshotFolder();
    // axe is injected as a script; the page's CSP allows only its own scripts.
    wb = await openWorkbench({ fixture: { iterations: 8 }, browser: { viewport: { width: 1440, height: 900 }, bypassCSP: true } });
    ({ fixture, serve, page } = wb);
  });

  afterAll(async () => {
    await wb?.close();
  });

  const first = () => fixture.runs[0].run.id;
  const views: Array<{ name: string; open: () => Promise<void> }> = [
    {
      name: 'runs',
      open: async () => {
        await page.goto(serve.at('/runs'));
        await page.locator('.run-row').first().waitFor();
      },
    },
    {
      name: 'new-run',
      open: async () => {
        await page.goto(serve.at('/runs'));
        await page.locator('.new-run-button').click();
        await page.locator('select[name=config]').waitFor();
      },
    },
    {
      name: 'run',
      open: async () => {
        await page.goto(serve.at(`/runs/${first()}`));
        await page.locator('.metric-chart canvas').first().waitFor();
      },
    },
    {
      name: 'checkpoints',
      open: async () => {
        await page.goto(serve.at(`/runs/${first()}/checkpoints`));
        await page.locator('.checkpoint-row').first().waitFor();
      },
    },
    {
      name: 'compare',
      open: async () => {
        const ids = [first(), fixture.runs[2].run.id].join(',');
        await page.goto(serve.at(`/compare?runs=${ids}&metric=${encodeURIComponent('train/reward/mean')}`));
        await page.locator('.compare-chart canvas').first().waitFor();
      },
    },
    {
      name: 'replay',
      open: async () => {
        await page.goto(serve.at(`/runs/${first()}/replay`));
        await page.locator('.episode-row').first().waitFor();
      },
    },
  ];

  for (const view of views) {
    it(`has no serious or critical violation in the ${view.name} view`, async () => {
      await view.open();
      expect(await seriousViolations()).toEqual([]);
      await saveScreenshot(page, shots.dir, `a11y-${view.name}`);
    });
  }
});
