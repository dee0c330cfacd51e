// End to end: the Checkpoints view fits a 1024 px window with every action visible, and its
// title names the run as "run #4 fl-small-s3" (issue 21, point 6). A fork's total lies past its
// checkpoint, and the learning-rate field shows the schedule it feeds; a completed run resumes
// for more iterations and its Run view shows the new total (point 7).
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainFromConfigFile } from '../../main/services/training';
import { openStore } from '../../main/store/db';
import type { TempDir } from '../helpers/fixtures';
import { TINY_BANDIT_OVERRIDES } from '../helpers/tiny-bandit';
import { hasChromium, openWorkbench, root, type OpenWorkbench, type Serve } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';

let shots: TempDir;
let serve: Serve;
let page: Page;
let wb: OpenWorkbench;
let runId: number;
let warmingRunId: number;
let dataDir: string;

/** A run whose checkpoints carry what a real trainer's do: some 60 metrics with long names. */
function addRunWithCheckpoints(dataDir: string): number {
  const store = openStore(dataDir);
  try {
    const config = {
      trainer: { total_training_steps: 30 },
      actor_rollout_ref: { actor: { optim: { lr: 0.001, lr_scheduler_type: 'cosine' as const, min_lr_ratio: 0.2, lr_warmup_steps_ratio: 0.1 } } },
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

/** A run stopped during its warm start: its one checkpoint is a warm-start checkpoint (warm_start.save_freq). */
function addRunStoppedInWarmStart(dataDir: string): number {
  const store = openStore(dataDir);
  try {
    const run = store.runs.create({ name: 'warming', config: { trainer: { total_training_steps: 30 } }, seed: 0, envTags: ['Sokoban'], algorithm: 'grpo', status: 'stopped' });
    store.checkpoints.insert([{ runId: run.id, iteration: 0, path: `checkpoints/run-${run.id}/warm-start-250`, sizeBytes: 11_000_000, sha256: 'cd'.repeat(32), warmStartStep: 250 }]);
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
      addRuns: (dir) => {
        runId = addRunWithCheckpoints(dir);
        warmingRunId = addRunStoppedInWarmStart(dir);
      },
      browser: { viewport: { width: 1024, height: 700 } },
    });
    ({ serve, page } = wb);
    dataDir = wb.fixture.dir;
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

  it('says what a warm-start checkpoint is and offers only what it is for: resuming the run', async () => {
    await page.goto(serve.at(`/runs/${warmingRunId}/checkpoints`));
    await expect.poll(() => page.locator('h2.checkpoints-title').innerText()).toBe(`Checkpoints of run #${warmingRunId} warming`);
    const row = page.locator('.checkpoint-row').first();
    await row.waitFor();
    expect(await row.locator('td.iteration').innerText()).toBe('warm start, step 250 (resumes the run)');
    expect(await row.locator('td.iteration').getAttribute('title')).toMatch(/^a warm-start checkpoint \(warm_start.save_freq\)/);
    expect(await row.locator('button.resume').count()).toBe(1);
    for (const refused of ['fork', 'evaluate', 'export-model']) expect(await row.locator(`button.${refused}`).count()).toBe(0);
  });

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
    // The fork offers, like the New-run form, only the backends that start here.
    const select = page.locator('.fork-panel select[name=backend]');
    // tfjs-node cannot install on these machines (it downloads libtensorflow), so the probe
    // always lists tensorflow as unable to start here.
    const tensorflow = page.locator('.fork-panel .backends-unavailable li[data-backend="tensorflow"]');
    await expect.poll(() => tensorflow.count(), { timeout: 60_000 }).toBe(1);
    const offered = await select.locator('option').evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));
    for (const name of ['tensorflow', 'webgpu', 'wasm', 'cpu']) {
      const listed = await page.locator(`.fork-panel .backends-unavailable li[data-backend="${name}"]`).count();
      expect((offered.includes(name) ? 1 : 0) + listed).toBe(1);
    }
    // The fork's config is checked while it is edited, as the New run form's is: a misspelt key
    // is named beside the form, with the closest valid one, and Start waits for it.
    await page.locator('.fork-panel textarea[name=extra]').fill('agent_proxy.max_turns=3');
    await expect.poll(() => page.locator('.fork-panel .config-problems').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/max_turns.*did you mean.*max_turn/);
    expect(await page.locator('.fork-panel .start-fork').isDisabled()).toBe(true);
    await page.locator('.fork-panel textarea[name=extra]').fill('');
    await expect.poll(() => page.locator('.fork-panel .config-problems').count(), { timeout: 30_000 }).toBe(0);
    // The server's refusal stays on the view (the reload after an action once cleared it, so a
    // refused fork said nothing). This fixture's checkpoints are rows without folders: that is
    // what the server refuses here.
    await page.locator('.fork-panel .start-fork').click();
    await expect.poll(() => page.locator('p.error').first().innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/^checkpoint folder not found: /);
    expect(await page.locator('.fork-panel').count()).toBe(1);
  });

  it('resumes a completed run for more iterations and shows the new total', async () => {
    // A real run with real checkpoints, trained to its planned end of 2 iterations.
    const store = openStore(dataDir);
    let done: number;
    try {
      const overrides = [...TINY_BANDIT_OVERRIDES, 'warm_start.steps=3', 'trainer.test_freq=0', 'trainer.save_freq=1', 'trainer.keep_last_n=10', 'trainer.total_training_steps=2'];
      const { run } = await trainFromConfigFile(store, join(root, 'configs/bandit.yaml'), { overrides, name: 'continue-me' });
      expect(run.status).toBe('completed');
      done = run.id;
    } finally {
      store.close();
    }
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.goto(serve.at(`/runs/${done}/checkpoints`));
    const last = page.locator('.checkpoint-row[data-iteration="2"]');
    await last.locator('button.resume').click();
    // Resuming at the plan's end asks how far to train on, defaulting past it: 2 + 10.
    const total = last.locator('input[name=continueTo]');
    expect(await total.inputValue()).toBe('12');
    await total.fill('2');
    expect(await last.locator('.continue-run').isDisabled()).toBe(true);
    // Why it is disabled is on the page, not only in a tooltip.
    expect(await last.locator('.continue-problem').innerText()).toBe('iterations: a whole number above 2');
    await total.fill('4');
    expect(await last.locator('.continue-run').isDisabled()).toBe(false);
    expect(await last.locator('.continue-problem').count()).toBe(0);
    const box = (await last.locator('.continue-run').boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(1024);
    // Another run's fork panel does not follow to this one.
    expect(await page.locator('.fork-panel').count()).toBe(0);
    await saveScreenshot(page, shots.dir, 'checkpoints-continue', { fullPage: true });
    await last.locator('.continue-run').click();

    await page.waitForURL((url) => url.hash === `#/runs/${done}`);
    const status = page.locator('.bar .status');
    await expect.poll(() => status.innerText(), { timeout: 180_000 }).toBe('completed');
    await expect.poll(() => page.locator('.progress-text').innerText(), { timeout: 30_000 }).toBe('iteration 4 / 4');
    await saveScreenshot(page, shots.dir, 'run-continued');
    const reopened = openStore(dataDir);
    try {
      expect(reopened.checkpoints.listByRun(done).map((c) => c.iteration)).toEqual([1, 2, 3, 4]);
      expect((reopened.runs.get(done)!.config as { trainer: { total_training_steps: number } }).trainer.total_training_steps).toBe(4);
    } finally {
      reopened.close();
    }
  }, 300_000);
});
