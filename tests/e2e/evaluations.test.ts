// End to end (issue 21.8): evaluations of a checkpoint are stored and listed under it. A real
// short FrozenLake run trained by the CLI, one evaluation made by `turnlab eval`, another by the
// Checkpoints view's Evaluate in Chromium against `turnlab serve`; both survive a reload, and
// each opens in Replay, where its episodes step through to the state after the last action, and
// its episodes and turns download as the CLI exports them.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { seriousViolations } from './axe';
import { ensureBuilt, hasChromium, launchBrowser, root, startServe, type OpenBrowser, type Serve } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';
import { stepTo } from './stepper';

const GREEDY = 'actor_rollout_ref.rollout.val_kwargs.do_sample=false';

let data: TempDir;
let shots: TempDir;
let serve: Serve;
let browser: OpenBrowser;
let page: Page;
let checkpointId: number;
let cliEvaluation: number;

const turnlab = (...args: string[]) =>
  execFileSync(process.execPath, [join(root, 'bin/turnlab.js'), '--data-dir', data.dir, ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

const scrollWidth = () =>
  page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);

describe.skipIf(!hasChromium)('stored evaluations in a browser against turnlab serve', () => {
  beforeAll(async () => {
    ensureBuilt();
    data = makeTempDir('turnlab-evaluations-e2e-');
    turnlab('train', '--config', 'configs/frozenlake-nonslip.yaml', ...[...TINY_LAKE_OVERRIDES, 'trainer.total_training_steps=2'].flatMap((s) => ['--set', s]));
    const store = openStore(data.dir);
    try {
      checkpointId = store.checkpoints.latest(1)!.id;
    } finally {
      store.close();
    }
    cliEvaluation = (JSON.parse(turnlab('eval', `ckpt:${checkpointId}`, '--episodes', '2', '--set', GREEDY, '--json')) as { evaluationId: number }).evaluationId;
    shots = screenshotFolder();
    serve = await startServe(data.dir);
    browser = await launchBrowser({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
    page = browser.page;
    await page.goto(serve.url);
    await page.locator('.run-row').first().waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    data?.cleanup();
    shots?.cleanup();
  });

  it('lists the CLI\'s evaluation under its checkpoint, with its overrides and success rate', async () => {
    await page.goto(serve.at('/runs/1/checkpoints'));
    const row = page.locator(`.evaluation-row[data-evaluation-id="${cliEvaluation}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-checkpoint-id')).toBe(String(checkpointId));
    // Directly under its checkpoint's row.
    const previous = await row.evaluate((el) => (el as unknown as { previousElementSibling: { getAttribute(n: string): string | null } }).previousElementSibling.getAttribute('data-checkpoint-id'));
    expect(previous).toBe(String(checkpointId));
    expect(await row.locator('.evaluation-title').innerText()).toBe(`evaluation #${cliEvaluation}`);
    expect(await row.locator('.evaluation-meta').innerText()).toMatch(/, 2 episodes$/);
    expect(await row.locator('.override').allInnerTexts()).toEqual([GREEDY]);
    expect(await row.locator('.metric').first().getAttribute('data-metric')).toBe('val/FrozenLakeNonSlip/success');
  });

  it('stores an evaluation made in the Checkpoints view, which survives a reload', async () => {
    await page.locator('input[name=episodes]').fill('3');
    await page.locator(`.checkpoint-row[data-checkpoint-id="${checkpointId}"] button.evaluate`).click();
    const rows = page.locator(`.evaluation-row[data-checkpoint-id="${checkpointId}"]`);
    await expect.poll(() => rows.count(), { timeout: 120_000 }).toBe(2);
    expect(await page.locator('.message').innerText()).toMatch(/^evaluation #\d+ of iteration 2 stored: 3 episodes, listed under its checkpoint$/);
    // Newest first, directly under the checkpoint.
    const newest = Number(await rows.first().getAttribute('data-evaluation-id'));
    expect(newest).toBeGreaterThan(cliEvaluation);
    expect(await rows.first().locator('.evaluation-meta').innerText()).toMatch(/, 3 episodes$/);

    await page.reload();
    await rows.first().waitFor();
    expect(await rows.evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-evaluation-id'))))).toEqual([newest, cliEvaluation]);
    await rows.first().locator('.all-metrics summary').click();
    expect(await rows.first().locator('.all-metrics dt').count()).toBeGreaterThan(3);
    for (const width of [1024, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await saveScreenshot(page, shots.dir, `checkpoints-evaluations-${width}`);
      // The evaluation lines wrap inside the table: they never make it wider than the checkpoints do.
      const table = (await page.locator('.checkpoints-table').boundingBox())!;
      const wide = await page.locator('.checkpoints-table').evaluate((el) => {
        const rows = [...(el as unknown as { querySelectorAll(s: string): Iterable<{ style: { display: string } }> }).querySelectorAll('.evaluation-row')];
        rows.forEach((row) => (row.style.display = 'none'));
        const without = (el as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect().width;
        rows.forEach((row) => (row.style.display = ''));
        return without;
      });
      expect(table.width).toBeLessThanOrEqual(wide + 1);
      if (width === 1440) expect(await scrollWidth()).toBeLessThanOrEqual(width);
    }
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('opens an evaluation in Replay and steps an episode to the state after its last action', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(serve.at('/runs/1/checkpoints'));
    const row = page.locator(`.evaluation-row[data-evaluation-id="${cliEvaluation}"]`);
    await row.locator('a.evaluation-replay').click();
    await page.waitForURL(new RegExp(`#/runs/1/replay\\?(.*&)?evaluation=${cliEvaluation}`));
    await page.locator('.episode-row').first().waitFor();
    expect(await page.locator('.source-picker').inputValue()).toBe(String(cliEvaluation));
    expect(await page.locator('.source-picker option:checked').innerText()).toBe(`evaluation #${cliEvaluation} of iteration 2, 2 episodes, with overrides`);
    expect(await page.locator('.iteration-picker').count()).toBe(0);
    expect(await page.locator('.episode-row').count()).toBe(2);
    expect(await page.locator('.episode-row td:first-child').allInnerTexts()).toEqual(['val', 'val']);

    const turns = Number(await page.locator('.episode-row.selected td:nth-child(5)').innerText());
    // The stepper's last position waits for the episode's re-run in the background.
    await page.locator('.stepper[data-final-state="ready"]').waitFor();
    // The turns load apart from the re-run: a key pressed before they are shown steps nothing.
    await expect.poll(() => page.locator('.turn-counter').innerText()).toBe(`turn 1 / ${turns}`);
    await stepTo(page, turns, turns);
    await expect.poll(() => page.locator('.turn-counter').innerText()).toBe(`after turn ${turns} / ${turns}`);
    await page.locator('.final-state .grid-tiles').waitFor();
    expect(await page.locator('.final-state .note').innerText()).toMatch(/^Re-run from seed \d+ with the stored actions\.$/);

    await page.locator('button.resimulate').click();
    await page.locator('.verdict').waitFor();
    expect(await page.locator('.verdict .summary').innerText()).toMatch(/^reproduced: all \d+ turns match/);
    await saveScreenshot(page, shots.dir, 'replay-evaluation', { fullPage: true });
    await page.locator('button.group-toggle').click();
    await page.locator('.group-card .board-step').first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // Back to the run's own episodes from the source picker.
    await page.locator('.source-picker').selectOption('');
    await page.locator('.iteration-picker').waitFor();
    await expect.poll(() => page.locator('.episode-row td:first-child').allInnerTexts()).toContain('train');
  });

  it("downloads an evaluation's episodes as CSV and its turns as JSONL, as turnlab export --evaluation writes them", async () => {
    await page.goto(serve.at('/runs/1/checkpoints'));
    const row = page.locator(`.evaluation-row[data-evaluation-id="${cliEvaluation}"]`);
    await row.waitFor();
    const [episodes] = await Promise.all([page.waitForEvent('download'), row.locator('button.export').click()]);
    expect(episodes.suggestedFilename()).toMatch(new RegExp(`^turnlab-episodes-run-1-.*-evaluation-${cliEvaluation}\\.csv$`));
    const expected = turnlab('export', '1', '--evaluation', String(cliEvaluation), '--what', 'episodes');
    expect(readFileSync((await episodes.path())!, 'utf8')).toBe(expected);
    expect(parse(expected, { columns: true })).toHaveLength(2);

    await row.locator('select[name=exportWhat]').selectOption('turns');
    await row.locator('select[name=exportFormat]').selectOption('jsonl');
    const [turns] = await Promise.all([page.waitForEvent('download'), row.locator('button.export').click()]);
    expect(turns.suggestedFilename()).toMatch(new RegExp(`-evaluation-${cliEvaluation}\\.jsonl$`));
    expect(readFileSync((await turns.path())!, 'utf8')).toBe(turnlab('export', '1', '--evaluation', String(cliEvaluation), '--what', 'turns', '--format', 'jsonl'));
  });
});
