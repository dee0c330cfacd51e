// End to end: the Runs view with hundreds of runs (issue 40: the workbench at a thousand runs),
// at 1024 and 1440 px. It draws the first 100 rows and asks the server for the next 100 as the
// reader scrolls to the end (or presses "Show more"); search and sort (on the server) see every run.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { hasChromium, openWorkbench, type OpenWorkbench } from './harness';

const MANY = 450;
let wb: OpenWorkbench;
let page: Page;
let total = 0;

function addMany(dataDir: string): void {
  const store = openStore(dataDir);
  try {
    for (let i = 0; i < MANY; i++) {
      store.runs.create({ name: `many-${i}`, config: { trainer: { seed: i % 5 } }, seed: i % 5, envTags: ['Bandit'], algorithm: 'grpo', status: 'completed' });
    }
    total = store.runs.allIds().length;
  } finally {
    store.close();
  }
}

const rows = () => page.locator('.run-row').count();
const scrollToEnd = () =>
  page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollHeight: number; scrollTo(x: number, y: number): void } } }).document.documentElement;
    root.scrollTo(0, root.scrollHeight);
  });

describe.skipIf(!hasChromium)('Runs view with hundreds of runs', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 1 }, addRuns: addMany, browser: { viewport: { width: 1024, height: 800 } } });
    page = wb.page;
  });

  afterAll(async () => {
    await wb?.close();
  });

  it.each([1024, 1440])('draws 100 rows, then more at the end, and searches and sorts all at %i px', async (width) => {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(wb.serve.at('/runs'));
    // The width before this one ended scrolled to the last run, and a reload restores the scroll
    // position: at the end the next 100 rows load at once, so the first count saw 100 or 200.
    await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
    await page.reload();
    await page.locator('.run-row').first().waitFor();
    expect(await rows()).toBe(100);
    expect(await page.locator('.show-more-runs').innerText()).toBe(`Show 100 more (${total - 100} not shown yet)`);

    // A run beyond the drawn rows is found by the search, and the newest by sorting.
    await page.locator('.runs-search').fill(`many-${MANY - 3}`);
    await expect.poll(rows).toBe(1);
    await page.locator('.runs-search').fill('');
    await expect.poll(rows).toBe(100);
    await page.locator('th.sortable[data-sort="id"]').click();
    await expect.poll(() => page.locator('.run-row').first().getAttribute('data-run-id')).toBe(String(total));
    await page.locator('th.sortable[data-sort="id"]').click();
    await expect.poll(() => page.locator('.run-row').first().getAttribute('data-run-id')).toBe('1');

    // Scrolling to the end draws the next rows, until every run is there.
    for (let drawn = 100; drawn < total; drawn = Math.min(total, drawn + 100)) {
      await scrollToEnd();
      await expect.poll(rows).toBe(Math.min(total, drawn + 100));
    }
    expect(await page.locator('.rows-beyond').count()).toBe(0);
  });

  it('keeps each row\'s actions in sight at 1024 px when columns make the table wider than its box', async () => {
    await page.setViewportSize({ width: 1024, height: 800 });
    await page.goto(wb.serve.at('/runs?cols=trainer.seed,trainer.total_training_steps,metric:val/Bandit/success'));
    await page.locator('.run-row').first().waitFor();
    const sizes = await page.locator('.runs-table-scroll').evaluate((box) => ({ table: box.scrollWidth, box: box.clientWidth }));
    expect(sizes.table).toBeGreaterThan(sizes.box);
    // Inside the box's visible part, not under its scroll.
    const box = await page.locator('.runs-table-scroll').boundingBox();
    const edit = await page.locator('.run-row').first().locator('.edit').boundingBox();
    expect(edit!.x + edit!.width).toBeLessThanOrEqual(box!.x + box!.width);
  });

  it("says in Replay's run picker how many older runs it does not list", async () => {
    await page.goto(wb.serve.at('/runs/1/replay'));
    // The newest 200 and the run shown (#1, older than all of them).
    await expect.poll(async () => (await page.locator('.run-picker option.older-runs').innerText().catch(() => '')).trim()).toBe(`${total - 201} older runs not listed: open one from the Runs view`);
    expect(await page.locator('.run-picker option:not(.older-runs)').count()).toBe(201);
  });
});
