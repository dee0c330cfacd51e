// End to end: what the Runs view does to its selection at once (tag, untag, delete, as W&B's runs
// table does), and "+ column" offering the keys of every listed run, not only the first's.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    wb = await openWorkbench({ fixture: { iterations: 2 }, addRuns: addMazeRuns, browser: { viewport: { width: 1280, height: 900 } } });
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
  });

  it('adds and removes a tag on the selected runs, and says so', async () => {
    expect(await page.locator('.selected-runs .add-tag').count()).toBe(0);
    for (const id of extra) await page.locator(`.run-row[data-run-id="${id}"] .select-run`).check();
    await expect.poll(() => page.locator('.selected-count').innerText()).toBe('2 runs selected:');
    await page.locator('.selection-tag').fill('maze');
    await page.locator('.selection-tag').press('Enter');
    await expect.poll(() => page.locator('.selection-done').innerText()).toBe("tagged 2 runs 'maze'");
    for (const id of extra) await expect.poll(() => tagsOf(id)).toContain('maze');
    const fixtureRun = wb.fixture.runs[1].run.id;
    expect(await tagsOf(fixtureRun)).not.toContain('maze');

    await page.locator('.selected-runs .remove-tag').click();
    await expect.poll(() => page.locator('.selection-done').innerText()).toBe("untagged 2 runs 'maze'");
    for (const id of extra) await expect.poll(() => tagsOf(id)).not.toContain('maze');
  });

  it('holds a tag to 100 characters and asks for one when the field is empty', async () => {
    await page.locator('.selection-tag').fill('x'.repeat(100) + 'y');
    // The field holds at most 100 characters: what is typed past them never leaves it.
    expect((await page.locator('.selection-tag').inputValue()).length).toBe(100);
    await page.locator('.selection-tag').fill('   ');
    await page.locator('.selected-runs .add-tag').click();
    await expect.poll(() => page.locator('.selection-error').innerText()).toBe('type the tag to add or remove first');
  });

  it('deletes the selected runs after its question, which Escape withdraws', async () => {
    await page.locator('.delete-selected').click();
    await expect.poll(() => page.locator('.selected-runs .confirm').innerText()).toBe(`delete #${extra[0]} maze-s1, #${extra[1]} maze-s2 with their metrics, episodes and checkpoints, for good?`);
    await expect.poll(() => focusedClass()).toBe('confirm-delete-selected');
    await page.keyboard.press('Escape');
    await expect.poll(() => focusedClass()).toBe('delete-selected');
    expect(await listedIds()).toEqual(expect.arrayContaining(extra));

    await page.locator('.delete-selected').click();
    await page.locator('.confirm-delete-selected').click();
    await expect.poll(() => page.locator('.selection-done').innerText()).toBe('deleted 2 runs');
    await expect.poll(listedIds).toEqual(wb.fixture.runs.map((r) => r.run.id));
    // The deleted runs leave the selection: nothing is selected, and nothing is left to act on.
    expect(await page.locator('.selected-runs .delete-selected').count()).toBe(0);
    expect(await page.locator('.compare-button').isDisabled()).toBe(true);
  });
});
