// End to end: issue 21, point 13. "download started" clears, an exported metric CSV names its
// run (file name and a run_name column), the page has a favicon, and an error page speaks of
// the app, not of internal API method names; Delete asks first, naming the forks it leaves.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_METHODS } from '../../preload/contract';
import type { TempDir } from '../helpers/fixtures';
import { hasChromium, openWorkbench, type OpenWorkbench, type Serve } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';

let serve: Serve;
let page: Page;
let wb: OpenWorkbench;
let shots: TempDir;

describe.skipIf(!hasChromium)('small things', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 4 }, browser: { viewport: { width: 1280, height: 900 }, acceptDownloads: true } });
    ({ serve, page } = wb);
    shots = screenshotFolder();
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

  it('names the run in an exported metric CSV', async () => {
    const run = wb.fixture.runs[1].run;
    await page.goto(serve.at('/runs'));
    await page.locator(`.run-row[data-run-id="${run.id}"] .select-run`).check();
    await page.locator('select[name=exportWhat]').selectOption('metrics');
    await page.locator('select[name=exportFormat]').selectOption('csv');
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.export-panel button').click()]);
    expect(download.suggestedFilename()).toBe(`turnlab-metrics-run-${run.id}-${run.name}.csv`);
    const text = readFileSync((await download.path())!, 'utf8');
    expect(text.split('\r\n', 1)[0]).toBe('run_id,run_name,name,iteration,value,wall_time');
    const rows = parse(text, { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(wb.fixture.runs[1].metricCount);
    expect(rows.every((row) => row.run_id === String(run.id) && row.run_name === run.name)).toBe(true);
    await saveScreenshot(page, shots.dir, 'export-metrics-run');

    // A name in another script keeps its letters in the file's name (filename*, RFC 6266).
    const rename = async (name: string) => {
      await page.locator(`.run-row[data-run-id="${run.id}"] button.edit`).click();
      await page.locator('input[name=editName]').fill(name);
      await page.locator('input[name=editName]').press('Enter');
      await expect.poll(() => page.locator(`.run-row[data-run-id="${run.id}"] .run-name`).innerText()).toBe(name);
    };
    await rename('réglage 実験/2');
    const [renamed] = await Promise.all([page.waitForEvent('download'), page.locator('.export-panel button').click()]);
    expect(renamed.suggestedFilename()).toBe(`turnlab-metrics-run-${run.id}-réglage_実験_2.csv`);
    await rename(run.name);
  });

  it('exports the Runs table as shown: its rows, a column per added config key and metric, ISO times', async () => {
    const runs = wb.fixture.runs.map((r) => r.run);
    await page.goto(serve.at('/runs?sort=id&desc=1&cols=algorithm.adv_estimator,metric:train/reward/mean'));
    await page.reload(); // no run left selected by the test before
    await page.locator('.run-row').first().waitFor();
    await page.locator('select[name=exportWhat]').selectOption('table');
    expect(await page.locator('.export-panel button').innerText()).toBe('Export the table');
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.export-panel button').click()]);
    expect(download.suggestedFilename()).toBe('turnlab-runs-table.csv');
    const text = readFileSync((await download.path())!, 'utf8');
    expect(text.split('\r\n', 1)[0]).toBe(
      'id,name,status,env_tags,algorithm,seed,iterations,total_iterations,best_val_success,created,parent_run_id,parent_iteration,tags,notes,algorithm.adv_estimator,metric:train/reward/mean',
    );
    const rows = parse(text, { columns: true }) as Array<Record<string, string>>;
    // Every run, newest first as the table sorts them, not one page of it.
    expect(rows.map((row) => Number(row.id))).toEqual(runs.map((r) => r.id).sort((a, b) => b - a));
    for (const row of rows) {
      expect(row.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(row['algorithm.adv_estimator']).toMatch(/^[a-z_]+$/);
    }
    expect(rows.some((row) => Number.isFinite(Number(row['metric:train/reward/mean'])) && row['metric:train/reward/mean'] !== '')).toBe(true);
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

  it('works from the keyboard: a run opens from its name, a header sorts, Edit and Delete keep the focus in the row, Escape closes', async () => {
    const run = wb.fixture.runs[0].run;
    await page.goto(serve.at('/runs'));
    const row = page.locator(`.run-row[data-run-id="${run.id}"]`);
    await row.waitFor();
    const focusedClass = () => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { className: string } | null } }).document.activeElement?.className ?? '');
    // A header sorts with Enter.
    await page.locator('th.sortable[data-sort="name"]').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toMatch(/[?&]sort=name/);
    // Edit: the name field has the focus; Enter saves; the focus goes back to the row's Edit.
    await row.locator('button.edit').press('Enter');
    await expect.poll(focusedClass).toBe('');
    expect(await page.locator('input[name=editName]').evaluate((el) => el === (el as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('End');
    await page.keyboard.type('-k');
    await page.keyboard.press('Enter');
    await expect.poll(() => row.locator('.run-name').innerText()).toBe(`${run.name}-k`);
    await expect.poll(focusedClass).toBe('edit');
    // Escape leaves the edit panel and the New run panel.
    await row.locator('button.edit').press('Enter');
    await page.locator('input[name=editName]').press('Escape');
    await expect.poll(() => page.locator('.run-edit').count()).toBe(0);
    await page.locator('.new-run-button').press('Enter');
    await page.locator('.new-run').waitFor();
    await expect.poll(() => page.evaluate(() => Boolean((globalThis as unknown as { document: { activeElement: { closest(s: string): unknown } | null } }).document.activeElement?.closest('.new-run')))).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('.new-run').count()).toBe(0);
    // Delete asks with the focus on its confirmation; Escape takes the question back.
    await row.locator('button.delete').press('Enter');
    await expect.poll(focusedClass).toBe('confirm-delete');
    await page.keyboard.press('Escape');
    await expect.poll(() => row.locator('.confirm').count()).toBe(0);
    await expect.poll(focusedClass).toBe('delete');
    // The name is a link: Enter on it opens the run.
    await row.locator('.run-name').press('Enter');
    await page.waitForURL(new RegExp(`#/runs/${run.id}$`));
    await page.goto(serve.at('/runs'));
    await row.locator('button.edit').click();
    await page.locator('input[name=editName]').fill(run.name);
    await page.locator('input[name=editName]').press('Enter');
    await expect.poll(() => row.locator('.run-name').innerText()).toBe(run.name);
  });

  it('asks before deleting a run, naming the forks that keep only their own iterations, and deletes it once confirmed', async () => {
    const [parent, failed, fork] = wb.fixture.runs.map((r) => r.run);
    await page.goto(serve.at('/runs'));
    const row = (id: number) => page.locator(`.run-row[data-run-id="${id}"]`);
    await row(parent.id).waitFor();
    await row(parent.id).locator('button', { hasText: 'Delete' }).click();
    expect(await row(parent.id).locator('.confirm').innerText()).toBe(`delete run #${parent.id} and its checkpoints (#${fork.id} forked from it keeps only its own iterations)?`);
    await row(parent.id).locator('button', { hasText: 'Cancel' }).click();
    expect(await row(parent.id).locator('.confirm').count()).toBe(0);

    await row(failed.id).locator('button', { hasText: 'Delete' }).click();
    expect(await row(failed.id).locator('.confirm').innerText()).toBe(`delete run #${failed.id} and its checkpoints?`);
    await row(failed.id).locator('.confirm-delete').click();
    await expect.poll(() => row(failed.id).count()).toBe(0);
    await expect.poll(() => page.locator('.run-row').count()).toBe(2);
  });
});
