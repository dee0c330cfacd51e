// End to end: a real short FrozenLake run trained by the CLI, replayed in Debian's Chromium
// against `turnlab serve`: tiles drawn, turns stepped with the arrow keys up to the state after
// the last action, episodes listed by group, the group view's boards and actions, the episode
// re-simulated and reproduced, a chart click that opens the replay at that iteration, and the
// layout at 1024 px with this config's two long env tags (the episode list, the Runs view).
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { ensureBuilt, hasChromium, launchBrowser, root, startServe, type OpenBrowser, type Serve } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';
import { stepTo } from './stepper';

const TINY_LAKE = [...TINY_LAKE_OVERRIDES, 'trainer.total_training_steps=2'];

let data: TempDir;
let shots: TempDir;
let serve: Serve;
let browser: OpenBrowser;
let page: Page;
let runId: number;
let episodeId: number;
let episodeTurns: number;
/** A successful episode: its last position shows the agent on the goal (issue 21.12). */
let success: { id: number; iteration: number; turns: number } | null;

describe.skipIf(!hasChromium)('replay in a browser against turnlab serve', () => {
  beforeAll(async () => {
    ensureBuilt();
    data = makeTempDir('turnlab-replay-e2e-');
    const sets = TINY_LAKE.flatMap((s) => ['--set', s]);
    execFileSync(process.execPath, [join(root, 'bin/turnlab.js'), 'train', '--data-dir', data.dir, '--config', 'configs/frozenlake-nonslip.yaml', ...sets], {
      cwd: root,
      stdio: 'ignore',
    });
    const store = openStore(data.dir);
    try {
      runId = store.runs.list()[0].id;
      // The longest train episode of the last iteration, so there are turns to step through.
      const last = Math.max(...store.episodes.iterations(runId, 'train'));
      const longest = store.episodes.listByIteration(runId, last, { split: 'train' }).sort((a, b) => b.numTurns - a.numTurns)[0];
      episodeId = longest.id;
      episodeTurns = longest.numTurns;
      const won = store.episodes
        .iterations(runId)
        .flatMap((it) => store.episodes.listByIteration(runId, it, { success: true }))
        .sort((a, b) => b.numTurns - a.numTurns)[0];
      success = won ? { id: won.id, iteration: won.iteration, turns: won.numTurns } : null;
    } finally {
      store.close();
    }
    shots = screenshotFolder();
    serve = await startServe(data.dir);
    browser = await launchBrowser({ viewport: { width: 1400, height: 1000 } });
    page = browser.page;
    await page.goto(serve.url);
    await page.locator('.run-row').first().waitFor();
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    data?.cleanup();
    shots?.cleanup();
  });

  it('draws the episode as tiles and steps through its turns with the arrow keys', async () => {
    expect(episodeTurns).toBeGreaterThanOrEqual(2);
    await page.goto(serve.at(`/runs/${runId}/replay?episode=${episodeId}`));
    await page.locator('.episode-row').first().waitFor();
    await page.locator('.grid-tiles svg rect.tile').first().waitFor();
    // The 4x4 lake: 16 tiles, one player, one goal.
    expect(await page.locator('.grid-tiles svg rect.tile').count()).toBe(16);
    expect(await page.locator('.grid-tiles svg circle.player').count()).toBe(1);
    expect(await page.locator('.grid-tiles rect[data-terrain="goal"]').count()).toBe(1);
    // A legend says what the tiles are (issue 21.12).
    const legend = await page.locator('.grid-tiles .tile-legend li').evaluateAll((items) => items.map((item) => item.getAttribute('data-legend')));
    expect(legend).toEqual(expect.arrayContaining(['frozen', 'hole', 'goal', 'player']));
    // Long replies wrap inside the page instead of widening it.
    expect(await page.locator('.reply pre').first().evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { overflowWrap: string } }).getComputedStyle(el).overflowWrap)).toBe('anywhere');
    await expect.poll(() => page.locator('.turn-counter').innerText()).toBe(`turn 1 / ${episodeTurns}`);
    expect(await page.locator('.episode-row.selected').getAttribute('data-episode-id')).toBe(String(episodeId));

    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.locator('.turn-counter').innerText()).toBe(`turn 2 / ${episodeTurns}`);
    expect(new URL(page.url().replace('/#/', '/')).searchParams.get('turn')).toBe('1');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => page.locator('.turn-counter').innerText()).toBe(`turn 2 / ${episodeTurns}`);
    // The compact template's reply continues the prompt's <answer>: shown as an answer part.
    expect(await page.locator('.reply .part.answer').count()).toBeGreaterThan(0);

    // The episodes are listed by group, each under a header with its success count.
    const headers = await page.locator('.episode-group .group-header').allInnerTexts();
    expect(headers.length).toBeGreaterThanOrEqual(2);
    expect(headers[0]).toMatch(/^train group 0: \d of 2 succeeded$/);
    for (const group of await page.locator('.episode-group').all()) {
      const key = (await group.getAttribute('data-group'))!;
      const cells = await group.locator('.episode-row td:nth-child(3)').allInnerTexts();
      expect(new Set(cells)).toEqual(new Set([key.split('/')[1]]));
    }

    // Past the last turn: the state after the last action.
    // The stepper's last position waits for the episode's re-run in the background.
    await page.locator('.stepper[data-final-state="ready"]').waitFor();
    await stepTo(page, episodeTurns, episodeTurns);
    await expect.poll(() => page.locator('.turn-counter').innerText()).toBe(`after turn ${episodeTurns} / ${episodeTurns}`);
    expect(new URL(page.url().replace('/#/', '/')).searchParams.get('turn')).toBe(String(episodeTurns));
    await page.locator('.final-state .grid-tiles circle.player').waitFor();
    expect(await page.locator('.replay-turn').count()).toBe(0);
    expect(await page.locator('button.next').isDisabled()).toBe(true);

    // The group view: every episode's boards from the start to after its last action, with the actions.
    await page.locator('button.group-toggle').click();
    await expect.poll(() => page.locator('.group-card').count()).toBe(2);
    await expect.poll(() => page.url()).toMatch(/[?&]view=group(&|$)/);
    for (const card of await page.locator('.group-card').all()) {
      const id = Number(await card.getAttribute('data-episode-id'));
      const turns = await page.locator(`.episode-row[data-episode-id="${id}"] td:nth-child(5)`).innerText();
      await expect.poll(() => card.locator('.board-step').count()).toBe(Number(turns) + 1);
      expect(await card.locator('.board-step .grid-tiles svg').count()).toBe(Number(turns) + 1);
      expect(await card.locator('.final-board').count()).toBe(1);
      const actions = await card.locator('.board-step:not(.final-board) .step-actions').allInnerTexts();
      expect(actions.every((text) => /^→ \S/.test(text))).toBe(true);
    }
    const width = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(1400);
    await saveScreenshot(page, shots.dir, 'replay-group-view', { fullPage: true });
  });

  it('re-simulates the episode from its seed and says it is reproduced', async () => {
    await page.locator('button.resimulate').click();
    await page.locator('.verdict').waitFor();
    expect(await page.locator('.verdict').getAttribute('class')).toContain('reproduced');
    expect(await page.locator('.verdict .summary').innerText()).toMatch(/^reproduced: all \d+ turns match/);
    expect(await page.locator('.verdict tbody tr').count()).toBe(episodeTurns);

    const shot = await saveScreenshot(page, shots.dir, 'replay', { fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(1000);

    // Filtered by outcome, a group header counts what is listed, not "k of k succeeded".
    await page.locator('select.filter-outcome').selectOption('failure');
    await expect.poll(async () => (await page.locator('.episode-group .group-header').allInnerTexts()).every((h) => /: \d+ episodes? that failed \(outcome filter\)$/.test(h))).toBe(true);
    // The filter is in the address: a reload (or the link shared) lists the same episodes.
    await expect.poll(() => page.url()).toMatch(/[?&]outcome=failure(&|$)/);
    await page.reload();
    await expect.poll(() => page.locator('select.filter-outcome').inputValue()).toBe('failure');
    await expect.poll(async () => (await page.locator('.episode-group .group-header').allInnerTexts()).every((h) => /that failed \(outcome filter\)$/.test(h))).toBe(true);
    await page.locator('select.filter-outcome').selectOption('');
    await expect.poll(() => page.url()).not.toMatch(/outcome=/);
    await expect.poll(() => page.locator('.episode-group .group-header').first().innerText()).toMatch(/^train group 0: \d of 2 succeeded$/);
  });

  it('opens the replay at an iteration when a chart point is clicked', async () => {
    await page.goto(serve.at(`/runs/${runId}`));
    const chart = page.locator('.metric-chart .canvas').first();
    await chart.locator('canvas').waitFor();
    const box = (await chart.boundingBox())!;
    // The right edge of the plot is the last iteration.
    await page.mouse.click(box.x + box.width - 20, box.y + box.height / 2);
    await page.waitForURL(/#\/runs\/\d+\/replay\?iteration=\d+/);
    expect(page.url()).toMatch(new RegExp(`#/runs/${runId}/replay\\?iteration=2`));
    await page.locator('.grid-tiles svg rect.tile').first().waitFor();
    expect(await page.locator('.iteration-picker').inputValue()).toBe('2');

    // An iteration with no episodes shows the nearest, and says so after the address is rewritten to it.
    await page.goto(serve.at(`/runs/${runId}/replay?iteration=999`));
    await page.waitForURL(/[?&]episode=\d+/);
    expect(page.url()).toMatch(/[?&]iteration=2(&|$)/);
    await expect.poll(() => page.locator('p.note').first().innerText()).toBe('No episodes stored at iteration 999; showing iteration 2, the nearest.');

    // An episode id that is not listed (mistyped, another run's) shows the first instead, and says so,
    // whether the view opens on it or it is typed while the view is open.
    await page.goto(serve.at(`/runs/${runId}`));
    await page.goto(serve.at(`/runs/${runId}/replay?iteration=2&episode=999999`));
    await expect.poll(() => page.locator('p.episode-note').innerText().catch(() => '')).toMatch(/^Episode 999999 is not among the episodes listed \(iteration 2, with the filters set\); showing episode \d+, the first\.$/);
    const first = Number(new URLSearchParams(page.url().split('?')[1]).get('episode'));
    expect(page.url()).toMatch(/[?&]iteration=2(&|$)/);
    await page.goto(serve.at(`/runs/${runId}/replay?iteration=2&episode=888888`));
    await expect.poll(() => page.locator('p.episode-note').innerText().catch(() => '')).toBe(`Episode 888888 is not among the episodes listed (iteration 2, with the filters set); showing episode ${first}, the first.`);
    // Picking another episode ends the note.
    await page.locator('.episode-row').nth(1).click();
    await expect.poll(() => page.locator('p.episode-note').count()).toBe(0);
  });

  it('shows the agent on the goal after the last action of a successful episode', async ({ skip }) => {
    if (!success) skip('the tiny run solved no board');
    const won = success!;
    await page.goto(serve.at(`/runs/${runId}/replay?iteration=${won.iteration}&episode=${won.id}&turn=${won.turns}`));
    await expect.poll(() => page.locator('.turn-counter').innerText()).toBe(`after turn ${won.turns} / ${won.turns}`);
    const final = page.locator('.final-state .grid-tiles');
    await final.waitFor();
    expect(await final.getAttribute('data-status')).toBe('reached-goal');
    expect(await final.locator('figcaption').innerText()).toBe('reached the goal');
    // The agent stands on the goal tile.
    expect(await final.locator('g:has(rect[data-terrain="goal"]) circle.player').count()).toBe(1);
    expect(await page.locator('.final-state .note').innerText()).toMatch(/^Re-run from seed \d+ with the stored actions\.$/);
    // One step back is the last turn, its state before the winning move.
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => page.locator('.turn-counter').innerText()).toBe(`turn ${won.turns} / ${won.turns}`);
    expect(await page.locator('.replay-turn .grid-tiles').getAttribute('data-status')).toBe('playing');
    for (const width of [1024, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await page.keyboard.press('ArrowRight');
      await page.locator('.final-state').waitFor();
      await saveScreenshot(page, shots.dir, `replay-final-state-${width}`);
    }
    await page.setViewportSize({ width: 1400, height: 1000 });
  });

  it('shows the Runs view within a 1024 px window, every row\'s buttons included, with this run\'s two long env tags', async () => {
    await page.setViewportSize({ width: 1024, height: 800 });
    await page.goto(serve.at('/runs'));
    await page.locator('.run-row').first().waitFor();
    const pageWidth = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
    expect(pageWidth).toBeLessThanOrEqual(1024);
    const button = await page.locator('.run-row button', { hasText: 'Delete' }).first().boundingBox();
    expect(button!.x + button!.width).toBeLessThanOrEqual(1024);
    await page.setViewportSize({ width: 1400, height: 1000 });
  });

  it('keeps every column of the episode list and the whole turn in view at 1024 and 1440 wide', async () => {
    // This config has two env tags, so each row names its tag (`FrozenLakeNonSlip 12`): the
    // longest cells the list shows.
    await page.goto(serve.at(`/runs/${runId}/replay?episode=${episodeId}&turn=1`));
    await page.locator('.replay-turn').waitFor();
    for (const width of [1024, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(100);
      const pageWidth = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
      const fits = {
        page: pageWidth <= width,
        list: await page.locator('.episodes').evaluate((list: { scrollWidth: number; clientWidth: number }) => list.scrollWidth <= list.clientWidth),
        oneLineRows: (await page.locator('.episode-row').evaluateAll((rows: Array<{ getBoundingClientRect(): { height: number } }>) => rows.map((row) => row.getBoundingClientRect().height))).every(
          (height) => height < 30,
        ),
      };
      expect(fits, `at ${width} px`).toEqual({ page: true, list: true, oneLineRows: true });
    }
    await page.setViewportSize({ width: 1400, height: 1000 });
  });
});
