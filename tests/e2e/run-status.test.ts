// End to end: what the workbench says of a run waiting for its trainer (issue 40, point 3), at
// 1024 and 1440 px. A new run whose config warms up reads `warming up` in the Runs view as in the
// Run view, whoever started it (the CLI's runs read `queued` there before); a run being resumed
// reads `resuming`, with no "time left" from its old pace; one whose trainer has written how far its
// warm start is shows the step, the loss and the time left at that pace instead of iteration 0.
import { hostname } from 'node:os';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { hasChromium, openWorkbench, type OpenWorkbench } from './harness';

let wb: OpenWorkbench;
let page: Page;
let warming = 0;
let resuming = 0;
let progressing = 0;

function addQueuedRuns(dataDir: string): void {
  const store = openStore(dataDir);
  try {
    const config = { trainer: { total_training_steps: 20 }, warm_start: { mode: 'random-valid' as const, steps: 200 } };
    const fresh = store.runs.create({ name: 'cli-warm', config, seed: 0, envTags: ['Bandit'], algorithm: 'grpo', status: 'queued' });
    const old = store.runs.create({ name: 'being-resumed', config, seed: 1, envTags: ['Bandit'], algorithm: 'grpo', status: 'queued', startedAt: 1_750_000_000_000 });
    store.metrics.insert(
      Array.from({ length: 5 }, (_, i) => ({ runId: old.id, name: 'train/Bandit/success', iteration: i + 1, value: 0.5, wallTime: 1_750_000_000_000 + i * 1000 })),
    );
    const longer = { ...config, warm_start: { mode: 'expert' as const, steps: 2500 } };
    const going = store.runs.create({ name: 'warming-for-an-hour', config: longer, seed: 2, envTags: ['SimpleSokoban'], algorithm: 'grpo', status: 'queued' });
    // 1000 of 2500 steps in 10 minutes: 15 minutes left at that pace.
    store.runs.update(going.id, { warmStartProgress: { phase: 'warm start', step: 1000, steps: 2500, loss: 0.21, startedAt: 1_750_000_000_000, updatedAt: 1_750_000_600_000 } });
    // serve marks a queued run whose trainer is gone `interrupted`; this process stands in for it.
    for (const run of [fresh, old, going]) store.runs.setTrainerProcess(run.id, process.pid, hostname());
    warming = fresh.id;
    resuming = old.id;
    progressing = going.id;
  } finally {
    store.close();
  }
}

describe.skipIf(!hasChromium)('status of a run waiting for its trainer', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 2 }, addRuns: addQueuedRuns, browser: { viewport: { width: 1024, height: 800 } } });
    page = wb.page;
  });

  afterAll(async () => {
    await wb?.close();
  });

  it.each([1024, 1440])('says warming up and resuming at %i px', async (width) => {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(wb.serve.at('/runs'));
    const status = (id: number) => page.locator(`.run-row[data-run-id="${id}"] .status`);
    await expect.poll(() => status(warming).innerText()).toBe('warming up');
    expect(await status(resuming).innerText()).toBe('resuming');

    await page.goto(wb.serve.at(`/runs/${resuming}`));
    await page.reload();
    await page.locator('.run-progress').waitFor();
    expect(await page.locator('.bar .status').innerText()).toBe('resuming');
    expect(await page.locator('.time-left').count()).toBe(0);

    // Compare's run list says it as the Runs table does, not the stored `queued`.
    await page.goto(wb.serve.at(`/compare?runs=${warming},${resuming}`));
    await expect.poll(() => page.locator('.picker .status').allInnerTexts()).toEqual(expect.arrayContaining(['warming up', 'resuming']));
    expect(await page.locator('.picker .status').allInnerTexts()).not.toContain('queued');
  });

  it("shows how far a warm start is, in the Runs view and the Run view", async () => {
    await page.goto(wb.serve.at('/runs'));
    const row = page.locator(`.run-row[data-run-id="${progressing}"]`);
    await expect.poll(() => row.locator('.status').innerText()).toBe('warming up');
    expect(await row.locator('.progress').innerText()).toBe('warm start 40%');
    expect(await row.locator('.progress progress').getAttribute('value')).toBe('0.4');

    await page.goto(wb.serve.at(`/runs/${progressing}`));
    await page.reload();
    await page.locator('.run-progress').waitFor();
    expect(await page.locator('.progress-text').innerText()).toBe('warm start step 1000 / 2500, loss 0.2100');
    expect(await page.locator('.run-progress progress').getAttribute('value')).toBe('1000');
    expect(await page.locator('.time-left').innerText()).toBe('15 min 00 s left');
  });
});
