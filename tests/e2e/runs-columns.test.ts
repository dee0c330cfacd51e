// End to end: config keys and metrics as columns of the Runs table (W&B's runs table columns). A
// column is added from the keys of a run's config or the metrics it logs, shows each run's value
// (a metric's last), sorts on the server, lives in the address, and goes away with its ×.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, openWorkbench, type OpenWorkbench, type Serve } from './harness';

let serve: Serve;
let page: Page;
let wb: OpenWorkbench;

const KEY = 'algorithm.adv_estimator';
const cells = () => page.locator('.run-row').evaluateAll((rows) => rows.map((row) => [row.getAttribute('data-run-id'), row.querySelector('.config-value')?.textContent?.trim()]));
const metricCells = () => page.locator('.run-row').evaluateAll((rows) => rows.map((row) => row.querySelectorAll('.config-value')[1]?.textContent?.trim()));

describe.skipIf(!hasChromium)('config columns in the Runs table', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 2 }, browser: { viewport: { width: 1440, height: 900 } } });
    ({ serve, page } = wb);
  });

  afterAll(async () => {
    await wb?.close();
  });

  it("adds a config key as a column, shows each run's value and sorts by it", async () => {
    await page.goto(serve.at('/runs'));
    await page.locator('.run-row').first().waitFor();
    const add = page.locator('.add-column');
    await add.focus();
    await expect.poll(async () => (await add.locator('option').allInnerTexts()).map((t) => t.trim())).toContain(KEY);
    await add.selectOption(KEY);
    await expect.poll(() => decodeURIComponent(page.url())).toContain(`cols=${KEY}`);
    await expect.poll(() => page.locator('th.config-column').innerText()).toContain('adv_estimator');
    const runs = wb.fixture.runs.map((r) => r.run);
    await expect.poll(cells).toEqual(runs.map((run) => [String(run.id), run.algorithm]));

    await page.locator('th.config-column').click();
    await expect.poll(() => decodeURIComponent(page.url())).toContain(`sort=config:${KEY}`);
    const ascending = [...runs].sort((a, b) => a.algorithm.localeCompare(b.algorithm) || a.id - b.id).map((run) => [String(run.id), run.algorithm]);
    await expect.poll(cells).toEqual(ascending);
  });

  it("adds a metric's last value as a column", async () => {
    const add = page.locator('.add-column');
    const metric = (await add.locator('optgroup[label="metric (last value)"] option').first().getAttribute('value'))!;
    expect(metric).toMatch(/^metric:/);
    await add.selectOption(metric);
    await expect.poll(() => page.locator('th.config-column').nth(1).innerText()).toContain(`last ${metric.slice('metric:'.length)}`);
    // A number where the run logged it, "-" where it did not (the fork stopped before its validation).
    await expect.poll(metricCells).toEqual(wb.fixture.runs.map(() => expect.stringMatching(/^(-?\d[\d.e+-]*|-)$/)));
    // Polled: until the rows with the new column's values arrive, the old rows draw it as "-".
    await expect.poll(async () => (await metricCells()).filter((cell) => cell !== '-').length).toBeGreaterThan(0);
    await page.locator('th.config-column').nth(1).locator('.remove-column').click();
    await expect.poll(() => page.locator('th.config-column').count()).toBe(1);
  });

  it('keeps the column in the address and takes it away with its ×, the sort with it', async () => {
    await page.reload();
    await expect.poll(() => page.locator('th.config-column').count()).toBe(1);
    await page.locator('.remove-column').click();
    await expect.poll(() => page.locator('th.config-column').count()).toBe(0);
    await expect.poll(() => page.url()).not.toContain('cols=');
    expect(page.url()).not.toContain('sort=');
  });

  it('keeps the runs that meet a condition typed as MLflow filters, kept in the address', async () => {
    const runs = wb.fixture.runs.map((r) => r.run);
    const algorithm = runs[0].algorithm;
    const where = page.locator('.runs-where');
    await where.fill(`${KEY} = ${algorithm}`);
    await where.press('Enter');
    await expect.poll(() => new URLSearchParams(page.url().split('?')[1]).get('where')).toBe(`${KEY} = ${algorithm}`);
    const matching = runs.filter((run) => run.algorithm === algorithm).map((run) => String(run.id));
    expect(matching.length).toBeLessThan(runs.length);
    await expect.poll(() => page.locator('.run-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id')))).toEqual(matching);
    await page.reload();
    await expect.poll(() => where.inputValue()).toBe(`${KEY} = ${algorithm}`);
    await expect.poll(() => page.locator('.run-row').count()).toBe(matching.length);
    // The header's box selects the runs the conditions left, ready to compare; again, it clears them.
    const selectShown = page.locator('.select-shown');
    await selectShown.check();
    await expect.poll(() => page.locator('.compare-button').innerText()).toBe(`Compare (${matching.length})`);
    await selectShown.uncheck();
    await expect.poll(() => page.locator('.compare-button').innerText()).toBe('Compare');
    // Away to a run and back through the top bar's Runs link: the same table, as W&B keeps it.
    const listed = page.url();
    await page.locator(`.run-row[data-run-id="${matching[0]}"]`).click();
    await page.waitForURL((url) => url.hash.startsWith(`#/runs/${matching[0]}`));
    await page.locator('nav .runs-tab').click();
    await page.waitForURL((url) => url.hash.startsWith('#/runs?'));
    expect(page.url()).toBe(listed);
    await expect.poll(() => page.locator('.run-row').count()).toBe(matching.length);
  });

  it('says what does not read, and offers the nearest key for one no run has', async () => {
    const where = page.locator('.runs-where');
    await where.fill('algorithm.adv_estimator >');
    await where.press('Enter');
    await expect.poll(() => page.locator('.where-problem').innerText()).toContain('has no value after its operator');
    // Until it reads no run is listed, so none is compared or exported by mistake.
    await expect.poll(() => page.locator('.run-row').count()).toBe(0);
    expect(await page.locator('.no-match').innerText()).toBe('No runs listed while the conditions do not read: the line under the where field says why.');

    await where.fill(`algorithm.adv_estimater=${wb.fixture.runs[0].run.algorithm}`);
    await where.press('Enter');
    await expect.poll(() => page.locator('.where-problem').innerText()).toContain('No run has the config key algorithm.adv_estimater.');
    await expect.poll(() => page.locator('.run-row').count()).toBe(0);
    await expect.poll(() => page.locator('.no-match').innerText()).toBe('No run matches these filters.');
    await page.getByRole('button', { name: `Use ${KEY}` }).click();
    await expect.poll(() => where.inputValue()).toBe(`${KEY}=${wb.fixture.runs[0].run.algorithm}`);
    await expect.poll(() => page.locator('.run-row').count()).toBeGreaterThan(0);
    await expect.poll(() => page.locator('.where-problem').count()).toBe(0);
  });
});
