// End to end: Replay of a text environment at 1024 and 1440 px (issue 40, point 2). A bandit's
// state is one long sentence: it wraps beside the reply and actions instead of pushing them off
// screen; the group view comes after the board being stepped, so that board stays near the top;
// the episode shown is highlighted in the list and scrolled into its view.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import type { NewEpisode } from '../../main/store/types';
import { hasChromium, openWorkbench, type OpenWorkbench } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';

const PROMPT = 'There are 2 arms, named Phoenix and Dragon. Choose one arm to pull: Phoenix or Dragon.';
const GROUPS = 4;
const GROUP_SIZE = 8;
let runId = 0;
let lastEpisode = 0;
let wb: OpenWorkbench;
let page: Page;

function addBanditRun(dataDir: string): void {
  const store = openStore(dataDir);
  try {
    const run = store.runs.create({ name: 'bandit-text', config: {}, seed: 0, envTags: ['Bandit'], algorithm: 'grpo', status: 'completed' });
    runId = run.id;
    const episodes: NewEpisode[] = [];
    for (let g = 0; g < GROUPS; g++) {
      for (let i = 0; i < GROUP_SIZE; i++) {
        const arm = (g + i) % 2 === 0 ? 'Dragon' : 'Phoenix';
        const reward = arm === 'Dragon' && i % 4 === 0 ? 1 : 0.1;
        episodes.push({
          runId, iteration: 1, split: 'train', envTag: 'Bandit', groupId: g, envIndex: g * GROUP_SIZE + i, seed: 100 + g,
          totalReward: reward, success: reward === 1, numActions: 1, truncated: false, filteredOut: false,
          turns: [{
            observation: PROMPT, state: PROMPT, response: `<answer>${arm}</answer>`, actions: [arm], numValidActions: 1,
            reward, done: true, info: { success: reward === 1 }, numTokens: 8, logprobSum: -3.2, advantageMean: reward - 0.3,
          }],
        });
      }
    }
    const ids = store.episodes.insert(episodes);
    lastEpisode = ids[ids.length - 1];
  } finally {
    store.close();
  }
}

const pageWidth = () =>
  page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);

describe.skipIf(!hasChromium)('replay of a text environment', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 2 }, addRuns: addBanditRun, browser: { viewport: { width: 1024, height: 800 } } });
    page = wb.page;
  });

  afterAll(async () => {
    await wb?.close();
  });

  it.each([1024, 1440])('fits %i px, keeps the stepped board on top of the group, shows the episode in the list', async (width) => {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(wb.serve.at('/runs'));
    await page.locator('.run-row').first().waitFor();
    await page.goto(wb.serve.at(`/runs/${runId}/replay`));
    const first = page.locator('.episode-row').first();
    await first.waitFor();
    // The first episode opens, highlighted.
    await expect.poll(() => first.getAttribute('aria-current')).toBe('true');
    await page.locator('.replay-turn').waitFor();
    expect(await pageWidth()).toBeLessThanOrEqual(width);
    // The reply and the actions are on screen, beside a state that wraps.
    for (const selector of ['.replay-turn .details', '.replay-turn .action']) {
      const box = (await page.locator(selector).first().boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      expect(box.width).toBeGreaterThan(selector.endsWith('details') ? 250 : 20);
    }

    // The group view lists every member below the board being stepped.
    await page.locator('.group-toggle').click();
    await page.locator('.group').waitFor();
    const turnTop = (await page.locator('.replay-turn').boundingBox())!.y;
    expect(turnTop).toBeLessThan(400);
    expect((await page.locator('.group').boundingBox())!.y).toBeGreaterThan(turnTop);
    await saveScreenshot(page, screenshotFolder().dir, `replay-text-${width}`, { fullPage: true });
    await page.locator('.group-toggle').click();

    // An episode opened by a link, far down the list, is highlighted and scrolled into the list's view.
    await page.goto(wb.serve.at(`/runs/${runId}/replay?iteration=1&episode=${lastEpisode}`));
    const row = page.locator(`.episode-row[data-episode-id="${lastEpisode}"]`);
    await expect.poll(() => row.getAttribute('aria-current')).toBe('true');
    await expect.poll(async () => {
      const list = (await page.locator('.episodes').boundingBox())!;
      const box = (await row.boundingBox())!;
      return box.y >= list.y && box.y + box.height <= list.y + list.height;
    }).toBe(true);
  });
});
