// End to end: what the Runs view does to its selection at once (tag, untag, delete, as W&B's runs
// table does), and "+ column" offering the keys of every listed run, not only the first's.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteRun } from '../../main/services/run-admin';
import { openStore } from '../../main/store/db';
import { hasChromium, openWorkbench, type OpenWorkbench, type Serve } from './harness';

let serve: Serve;
let page: Page;
let wb: OpenWorkbench;
let extra: number[] = [];

const ONLY_LATER_KEY = 'custom_envs.MyMaze.env_config.walls';

/** Two runs after the fixture's, of an env whose config has a key the fixture's runs lack. */
function addMazeRuns(dataDir: string): void {
  const store = openStore(dataDir);
  try {
    extra = [1, 2].map((seed) => store.runs.create({ name: `maze-s${seed}`, config: { trainer: { seed }, custom_envs: { MyMaze: { env_config: { walls: 3 } } } }, seed, envTags: ['MyMaze'], algorithm: 'grpo', status: 'completed' }).id);
  } finally {
    store.close();
  }
}

const listedIds = () => page.locator('.run-row').evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-run-id'))));
const focusedClass = () => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { className: string } | null } }).document.activeElement?.className ?? '');
const tagsOf = (id: number) => page.locator(`.run-row[data-run-id="${id}"] .tag`).allInnerTexts();

describe.skipIf(!hasChromium)('the Runs view\'s selection, all at once', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 2 }, addRuns: addMazeRuns, browser: { viewport: { width: 1280, height: 900 }, acceptDownloads: true } });
    ({ serve, page } = wb);
  });

  afterAll(async () => {
    await wb?.close();
  });

  it('"+ column" offers a config key that only runs after the first listed have', async () => {
    await page.goto(serve.at('/runs'));
    await page.locator('.run-row').first().waitFor();
    expect((await listedIds())[0]).not.toBe(extra[0]);
    const add = page.locator('.add-column');
    await add.focus();
    await expect.poll(async () => (await add.locator('option').allInnerTexts()).map((t) => t.trim())).toContain(ONLY_LATER_KEY);
    await add.selectOption(ONLY_LATER_KEY);
    await expect.poll(() => page.locator(`.run-row[data-run-id="${extra[0]}"] .config-value`).innerText()).toBe('3');
    // A filter that lists other runs offers their keys, without opening the menu again.
    const options = async () => (await add.locator('option').allInnerTexts()).map((t) => t.trim());
    expect(await options()).toContain('env.tag');
    await page.locator('.runs-search').fill('maze');
    await expect.poll(options).not.toContain('env.tag');
    await page.locator('.runs-search').fill('');
    await expect.poll(options).toContain('env.tag');
  });

  it('adds and removes a tag on the selected runs, and says how many it changed', async () => {
    expect(await page.locator('.selected-runs .add-tag').count()).toBe(0);
    expect(await page.locator('.selection-hint').innerText()).toContain('Select runs');
    for (const id of extra) await page.locator(`.run-row[data-run-id="${id}"] .select-run`).check();
    await expect.poll(() => page.locator('.selected-count').innerText()).toBe('2 runs selected:');
    expect(await page.locator('.select-shown').evaluate((box) => (box as unknown as { indeterminate: boolean }).indeterminate)).toBe(true);
    await page.locator('.selection-tag').fill('maze');
    await page.locator('.selection-tag').press('Enter');
    await expect.poll(() => page.locator('.selection-done').innerText()).toBe("added 'maze' to 2 runs");
    for (const id of extra) await expect.poll(() => tagsOf(id)).toContain('maze');
    expect(await tagsOf(wb.fixture.runs[1].run.id)).not.toContain('maze');
    // The field empties, so Enter on another selection does not tag it again by accident.
    expect(await page.locator('.selection-tag').inputValue()).toBe('');

    await page.locator('.selection-tag').fill('maze');
    await page.locator('.selection-tag').press('Enter');
    await expect.poll(() => page.locator('.selection-done').innerText()).toBe("added 'maze' to 0 of 2 runs (2 had it already)");
    await page.locator('.selection-tag').fill('maez');
    await page.locator('.selected-runs .remove-tag').click();
    await expect.poll(() => page.locator('.selection-done').innerText()).toBe("no selected run has the tag 'maez': nothing removed");
    await page.locator('.selection-tag').fill('maze');
    await page.locator('.selected-runs .remove-tag').click();
    await expect.poll(() => page.locator('.selection-done').innerText()).toBe("removed 'maze' from 2 runs");
    for (const id of extra) await expect.poll(() => tagsOf(id)).not.toContain('maze');
  });

  it('refuses a tag past 100 characters in words, and asks for one when the field is empty', async () => {
    await page.locator('.selection-tag').fill('x'.repeat(101));
    await page.locator('.selected-runs .add-tag').click();
    await expect.poll(() => page.locator('.selection-error').innerText()).toBe(`tags to add: each of the tags holds at most 100 characters ('${'x'.repeat(20)}...' has 101); no selected run was changed`);
    await page.locator('.selection-tag').fill('   ');
    await page.locator('.selected-runs .add-tag').click();
    await expect.poll(() => page.locator('.selection-error').innerText()).toBe('type the tag to add or remove first');
  });

  it('withdraws a message and a question once the selection changes', async () => {
    await page.locator('.delete-selected').click();
    await expect.poll(() => page.locator('.selected-runs .confirm').count()).toBe(1);
    expect(await page.locator('.selection-error').count()).toBe(0);
    await page.locator('.clear-selection').click();
    await expect.poll(() => focusedClass()).toBe('select-shown');
    await page.locator(`.run-row[data-run-id="${extra[0]}"] .select-run`).check();
    await expect.poll(() => page.locator('.selected-count').innerText()).toBe('1 run selected:');
    expect(await page.locator('.selected-runs .confirm').count()).toBe(0);
    await page.locator(`.run-row[data-run-id="${extra[0]}"] .select-run`).uncheck();
  });

  it('names a selected fork parent\'s forks, the selected runs not listed, and keeps the selection across views', async () => {
    const parent = wb.fixture.runs.find((r) => wb.fixture.runs.some((f) => f.run.parentRunId === r.run.id))!.run;
    const fork = wb.fixture.runs.find((r) => r.run.parentRunId === parent.id)!.run;
    await page.locator(`.run-row[data-run-id="${parent.id}"] .select-run`).check();
    await page.locator('.delete-selected').click();
    await expect.poll(() => page.locator('.selected-runs .confirm').innerText()).toBe(`delete #${parent.id} ${parent.name} with their metrics, episodes and checkpoints, for good (#${fork.id} forked from them keeps only its own iterations)?`);
    // Escape withdraws it from anywhere on the page.
    await page.locator('.runs-search').focus();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('.selected-runs .confirm').count()).toBe(0);

    await page.locator('.runs-search').fill('maze');
    await expect.poll(() => page.locator('.selected-count').innerText()).toBe('1 run selected (1 not listed here):');
    // The table as shown holds none of the selection: its export says what it left out.
    await page.locator('select[name=exportWhat]').selectOption('table');
    await Promise.all([page.waitForEvent('download'), page.locator('.export-panel button').click()]);
    await expect.poll(() => page.locator('.export-panel .note').innerText()).toBe('0 runs (1 selected not in the table as filtered: left out)');
    await page.locator('.runs-search').fill('');
    await page.locator(`.run-row[data-run-id="${parent.id}"] .run-name`).click();
    await page.waitForURL(/#\/runs\/\d+/);
    await page.goBack();
    await expect.poll(() => page.locator('.selected-count').innerText()).toBe('1 run selected:');
    await page.locator('.clear-selection').click();
  });

  it('drops from the selection a run deleted elsewhere', async () => {
    await page.locator(`.run-row[data-run-id="${extra[1]}"] .select-run`).check();
    await page.locator(`.run-row[data-run-id="${extra[0]}"] .select-run`).check();
    await expect.poll(() => page.locator('.selected-count').innerText()).toBe('2 runs selected:');
    const store = openStore(wb.fixture.dir);
    try {
      await deleteRun(store, extra[1], new Set());
    } finally {
      store.close();
    }
    await expect.poll(() => page.locator('.selected-count').innerText(), { timeout: 15_000 }).toBe('1 run selected:');
  });

  it('deletes the selected runs after its question, which Escape withdraws', async () => {
    await page.locator('.delete-selected').click();
    await expect.poll(() => page.locator('.selected-runs .confirm').innerText()).toBe(`delete #${extra[0]} maze-s1 with their metrics, episodes and checkpoints, for good?`);
    await expect.poll(() => focusedClass()).toBe('confirm-delete-selected');
    await page.keyboard.press('Escape');
    await expect.poll(() => focusedClass()).toBe('delete-selected');
    expect(await listedIds()).toContain(extra[0]);

    await page.locator('.delete-selected').click();
    await page.locator('.confirm-delete-selected').click();
    await expect.poll(() => page.locator('.selection-done').innerText()).toBe('deleted 1 run');
    await expect.poll(listedIds).toEqual(wb.fixture.runs.map((r) => r.run.id));
    // The deleted run leaves the selection: nothing is selected, and nothing is left to act on.
    await expect.poll(() => page.locator('.selected-runs .delete-selected').count()).toBe(0);
    expect(await page.locator('.compare-button').isDisabled()).toBe(true);
    // Its leaving the selection does not take away the message that says it was deleted.
    expect(await page.locator('.selection-done').innerText()).toBe('deleted 1 run');
  });
});
