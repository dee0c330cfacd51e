// End to end: the Checkpoints view fits a 1024 px window with every action visible, and its
// title names the run as "run #4 fl-small-s3" (issue 21, point 6). A fork's total lies past its
// checkpoint, and the learning-rate field shows the schedule it feeds (point 7, in part).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import type { TempDir } from '../helpers/fixtures';
import { hasChromium, openWorkbench, type OpenWorkbench, type Serve } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';

let shots: TempDir;
let serve: Serve;
let page: Page;
let wb: OpenWorkbench;
let runId: number;

/** A run whose checkpoints carry what a real trainer's do: some 60 metrics with long names. */
function addRunWithCheckpoints(dataDir: string): number {
  const store = openStore(dataDir);
  try {
    const config = {
      trainer: { total_training_steps: 30 },
      actor_rollout_ref: { actor: { optim: { lr: 0.001, lr_scheduler_type: 'cosine', min_lr_ratio: 0.2, lr_warmup_steps_ratio: 0.1 } } },
    };
    const run = store.runs.create({ name: 'fl-small-s3', config, seed: 3, envTags: ['FrozenLake'], algorithm: 'grpo', status: 'completed' });
    const names = [
      'val/FrozenLake/optimal_success', 'val/FrozenLake/success', 'train/FrozenLake/success', 'train/FrozenLake/reward',
      'train/FrozenLake/in_group_reward_std', 'actor/pg_clipfrac_lower_bound', 'critic/advantages_mean',
      ...Array.from({ length: 50 }, (_, i) => `actor/very_long_diagnostic_metric_name_${i}`),
    ];
    store.checkpoints.insert(
      [10, 20, 30].map((iteration) => ({
        runId: run.id,
        iteration,
        path: `checkpoints/run-${run.id}/iter-${iteration}`,
        sizeBytes: 2_000_000 + iteration,
        sha256: 'ab'.repeat(32),
        createdAt: 1_750_000_000_000 + iteration * 1000,
        metrics: Object.fromEntries(names.map((name, i) => [name, (i + iteration) / 1000 + 0.123456])),
      })),
    );
    return run.id;
  } finally {
    store.close();
  }
}

describe.skipIf(!hasChromium)('Checkpoints view layout', () => {
  beforeAll(async () => {
    shots = screenshotFolder();
    wb = await openWorkbench({
      fixture: { iterations: 5 },
      addRuns: (dir) => (runId = addRunWithCheckpoints(dir)),
      browser: { viewport: { width: 1024, height: 700 } },
    });
    ({ serve, page } = wb);
  });

  afterAll(async () => {
    await wb?.close();
  });

  for (const width of [1024, 1440]) {
    it(`fits the table with its actions at ${width} px and names the run in the title`, async () => {
      await page.setViewportSize({ width, height: 700 });
      await page.goto(serve.at(`/runs/${runId}/checkpoints`));
      await page.locator('.checkpoint-row').first().waitFor();
      expect(await page.locator('h2.checkpoints-title').innerText()).toBe(`Checkpoints of run #${runId} fl-small-s3`);
      // Validation success leads the metric columns.
      expect(await page.locator('th.metric-column').first().getAttribute('title')).toBe('val/FrozenLake/success');
      const table = (await page.locator('.checkpoints-table').boundingBox())!;
      expect(table.x + table.width).toBeLessThanOrEqual(width);
      expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      const buttons = page.locator('.checkpoint-row').first().locator('td.actions button');
      expect(await buttons.count()).toBe(5);
      for (const button of await buttons.all()) {
        const box = (await button.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(width);
        expect(await button.isVisible()).toBe(true);
      }
      await saveScreenshot(page, shots.dir, `checkpoints-${width}`);
    });
  }

  it('defaults a fork to a total that trains, and shows the learning-rate schedule', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(serve.at(`/runs/${runId}/checkpoints`));
    const forkAt = async (iteration: number) => {
      await page.locator(`.checkpoint-row[data-iteration="${iteration}"] button.fork`).click();
      return page.locator('input[name=totalIterations]').inputValue();
    };
    // From iteration 10 of 30 the parent's plan still lies ahead.
    expect(await forkAt(10)).toBe('30');
    // From the last checkpoint the parent's total would train nothing: 30 + 15.
    expect(await forkAt(30)).toBe('45');
    expect(await page.locator('.fork-panel .lr-schedule').innerText()).toBe(
      'cosine from 0.001 down to 0.0002 at the last iteration, after a linear warm-up over the first 10%',
    );
    await page.locator('.fork-panel input[name=learningRate]').fill('5e-4');
    expect(await page.locator('.fork-panel .lr-schedule').innerText()).toMatch(/^cosine from 0\.0005 down to 0\.0001 /);
  });
});
