// End to end: the Run view a researcher reaches for (issue 21, points 1 and 2). Headline charts
// first, collapsible sections, a metric search and pins that persist; progress with time left
// and tokens per second; Stop and Resume on the view itself against a real trainer.
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import type { MetricPoint } from '../../main/store/types';
import { type FixtureDataDir, type TempDir } from '../helpers/fixtures';
import { hasChromium, openWorkbench, root, type OpenWorkbench, type Serve } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';

const TOTAL = 300;
const DONE = 19;
const HEADLINES = ['validation success', 'train success', 'reward', 'well-formed answers', 'response length (tokens)'];

let fixture: FixtureDataDir;
let shots: TempDir;
let serve: Serve;
let page: Page;
let wb: OpenWorkbench;
let richRunId: number;
let collapsedRunId: number;
let warmingRunId: number;

/** A run logging what the trainer logs: RAGEN's per-tag metrics and dozens of actor/critic ones. */
function addRichRun(dataDir: string): number {
  const store = openStore(dataDir);
  try {
    const config = { trainer: { total_training_steps: TOTAL }, warm_start: { mode: 'none' as const, steps: 0 } };
    const run = store.runs.create({ name: 'bandit-rich', config, seed: 1, envTags: ['bandit'], algorithm: 'grpo', status: 'running' });
    const names = [
      'val/bandit/success', 'val/bandit/optimal_success', 'train/bandit/success', 'train/bandit/reward',
      'train/bandit/format_ok', 'train/bandit/response_length', 'perf/rollout_tokens_per_second', 'perf/train_tokens_per_second',
      ...Array.from({ length: 40 }, (_, i) => `actor/stat_${String(i).padStart(2, '0')}`),
      'actor/kl_coef', 'critic/vpred_mean', 'critic/returns_mean', 'timing/rollout_s',
    ];
    const points: MetricPoint[] = [];
    for (let it = 1; it <= DONE; it++) {
      // Two seconds an iteration: 281 left take 9 min 22 s.
      const wallTime = 1_750_000_000_000 + it * 2000;
      for (const name of names) {
        const value = name === 'perf/rollout_tokens_per_second' ? 1234.4 : name === 'perf/train_tokens_per_second' ? 567 : name === 'val/bandit/optimal_success' ? 1 : it / DONE;
        points.push({ runId: run.id, name, iteration: it, value, wallTime });
      }
    }
    store.metrics.insert(points);
    return run.id;
  } finally {
    store.close();
  }
}

/** A run whose well-formed answers fell at iteration 3, as the trainer logs it. */
function addCollapsedRun(dataDir: string): number {
  const store = openStore(dataDir);
  try {
    const run = store.runs.create({ name: 'bandit-collapsed', config: {}, seed: 1, envTags: ['bandit'], algorithm: 'grpo', status: 'completed' });
    const shares = [0.6, 0.97, 0, 0];
    store.metrics.insert(
      shares.flatMap((share, i) => [
        { runId: run.id, name: 'rollout/well_formed_share', iteration: i + 1, value: share, wallTime: 1_750_000_000_000 + i * 1000 },
        { runId: run.id, name: 'rollout/collapse', iteration: i + 1, value: i >= 2 ? 1 : 0, wallTime: 1_750_000_000_000 + i * 1000 },
      ]),
    );
    return run.id;
  } finally {
    store.close();
  }
}

/** A run stopped at warm start step 40 of 600, before any checkpoint, as the trainer leaves it. */
function addRunStoppedWarming(dataDir: string): number {
  const store = openStore(dataDir);
  try {
    const config = { trainer: { total_training_steps: 10 }, warm_start: { mode: 'expert' as const, steps: 600 } };
    const run = store.runs.create({ name: 'stopped-warming', config, seed: 1, envTags: ['bandit'], algorithm: 'grpo', status: 'running' });
    const at = 1_750_000_000_000;
    store.runs.update(run.id, { status: 'stopped', finishedAt: at + 5000, warmStartProgress: { phase: 'warm start', step: 40, steps: 600, loss: 0.5, startedAt: at, updatedAt: at + 4000 } });
    return run.id;
  } finally {
    store.close();
  }
}

async function callApi(method: string, args: unknown[]): Promise<unknown> {
  const reply = await fetch(new URL(`/api/${method}`, serve.url), {
    method: 'POST',
    headers: { Authorization: `Bearer ${serve.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(args),
  });
  const body = (await reply.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

const chartTitles = (section: string) => page.locator(`${section} .metric-chart .chart-title`).allInnerTexts();

describe.skipIf(!hasChromium)('Run view in a browser', () => {
  beforeAll(async () => {
    shots = screenshotFolder();
    wb = await openWorkbench({
      fixture: { iterations: 5 },
      addRuns: (dir) => {
        richRunId = addRichRun(dir);
        collapsedRunId = addCollapsedRun(dir);
        warmingRunId = addRunStoppedWarming(dir);
      },
      browser: { viewport: { width: 1440, height: 900 } },
    });
    ({ fixture, serve, page } = wb);
  });

  afterAll(async () => {
    await wb?.close();
  });

  for (const width of [1440, 1024]) {
    it(`shows the headline charts first, in the first screen, at ${width} px`, async () => {
      await page.setViewportSize({ width, height: width === 1440 ? 900 : 700 });
      await page.evaluate(() => (globalThis as unknown as { localStorage: { clear(): void } }).localStorage.clear());
      await page.goto(serve.at(`/runs/${richRunId}`));
      await page.locator('.headline-charts .metric-chart canvas').first().waitFor();
      expect(await chartTitles('.headline-charts')).toEqual(HEADLINES);
      // Headline charts are always first: nothing to pin.
      expect(await page.locator('.headline-charts .pin').count()).toBe(0);
      // Validation success carries the optimal policy's line.
      expect(await page.locator('.headline-charts [data-chart="val-success"]').getAttribute('data-series')).toBe(
        'val/bandit/success val/bandit/optimal_success',
      );
      // The headline section comes before any other metric section, its first chart on screen.
      const headline = (await page.locator('.headline-charts').boundingBox())!;
      const firstGroup = (await page.locator('.metric-group').first().boundingBox())!;
      expect(headline.y).toBeLessThan(firstGroup.y);
      const valChart = (await page.locator('[data-chart="val-success"]').boundingBox())!;
      expect(valChart.y + valChart.height).toBeLessThan(page.viewportSize()!.height);
      await saveScreenshot(page, shots.dir, `run-${width}`);
    });
  }

  it('marks a collapsed run with a badge naming the fall in well-formed answers, and a healthy one not (issue 19)', async () => {
    await page.goto(serve.at(`/runs/${collapsedRunId}`));
    await page.locator('.collapse-badge').waitFor();
    expect(await page.locator('.collapse-badge').innerText()).toBe('collapsed: well-formed answers 0.00 (was 0.97)');
    await page.goto(serve.at(`/runs/${richRunId}`));
    await page.locator('.metric-chart').first().waitFor();
    expect(await page.locator('.collapse-badge').count()).toBe(0);
    // The Runs table marks it too, so a collapse is seen without opening every run.
    await page.goto(serve.at('/runs'));
    const row = (name: string) => page.locator('.run-row', { has: page.locator('.run-name', { hasText: new RegExp(`^${name}$`) }) });
    await row('bandit-collapsed').waitFor();
    expect(await row('bandit-collapsed').locator('.collapsed-badge').innerText()).toBe('collapsed');
    expect(await row('bandit-rich').locator('.collapsed-badge').count()).toBe(0);
  });

  it('collapses sections, searches and pins metrics, and keeps all three after a reload', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(serve.at(`/runs/${richRunId}`));
    const actor = page.locator('.metric-group[data-section="actor"]');
    await actor.locator('.metric-chart').first().waitFor();
    expect(await actor.locator('.metric-chart').count()).toBe(41);
    await actor.locator('.section-toggle').click();
    expect(await actor.locator('.metric-chart').count()).toBe(0);
    expect(await actor.locator('.section-toggle').getAttribute('aria-expanded')).toBe('false');

    // Pin one metric of the critic section: it appears in Pinned, above the sections.
    await page.locator('.metric-group [data-metric="critic/vpred_mean"] .pin').click();
    expect(await chartTitles('.pinned-charts')).toEqual(['critic/vpred_mean']);

    await page.reload();
    await page.locator('.pinned-charts .metric-chart').first().waitFor();
    expect(await chartTitles('.pinned-charts')).toEqual(['critic/vpred_mean']);
    expect(await actor.locator('.metric-chart').count()).toBe(0);

    // A search narrows every section (collapsed ones open to show their matches).
    await page.locator('.metric-search').fill('kl coef');
    await expect.poll(() => chartTitles('.metric-group')).toEqual(['actor/kl_coef']);
    expect(await page.locator('.headline-charts').count()).toBe(0);
    await page.reload();
    await page.locator('.metric-group .metric-chart').first().waitFor();
    expect(await page.locator('.metric-search').inputValue()).toBe('kl coef');
    expect(await chartTitles('.metric-group')).toEqual(['actor/kl_coef']);

    // Unpin from the pinned section; clear the search; expand actor again.
    await page.locator('.metric-search').fill('');
    await page.locator('.pinned-charts .pin').click();
    expect(await page.locator('.pinned-charts').count()).toBe(0);
    await actor.locator('.section-toggle').click();
    expect(await actor.locator('.metric-chart').count()).toBe(41);
  });

  it('shows progress as iteration k / total, time left and tokens per second', async () => {
    // serve marks a running run without a live trainer interrupted; this process stands in for
    // its trainer, so the run stays live and shows the time left.
    const store = openStore(fixture.dir);
    try {
      store.runs.update(richRunId, { status: 'running' });
      store.runs.setTrainerProcess(richRunId, process.pid, hostname());
    } finally {
      store.close();
    }
    // A reload: the same address again would keep the page as it was, showing the old status.
    await page.goto(serve.at(`/runs/${richRunId}`));
    await page.reload();
    await page.locator('.run-progress').waitFor();
    await saveScreenshot(page, shots.dir, 'run-progress');
    expect(await page.locator('.bar .status').innerText()).toBe('running');
    expect(await page.locator('.progress-text').innerText()).toBe(`iteration ${DONE} / ${TOTAL}`);
    expect(await page.locator('.time-left').innerText()).toBe('9 min 22 s left');
    expect(await page.locator('.tokens-per-second').innerText()).toBe('1,234 tokens/s rollout, 567 tokens/s training');
  });

  it('says why a run stopped in its warm start has no Resume, and what trains it again', async () => {
    await page.goto(serve.at(`/runs/${warmingRunId}`));
    await expect.poll(() => page.locator('.no-resume').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/^No Resume: the run stopped during its warm start.*New run from this config trains it again\.$/);
    expect(await page.locator('.resume-run').count()).toBe(0);
    expect(await page.locator('.new-from-run').isVisible()).toBe(true);
    // A failed run with checkpoints has its Resume and no such line.
    await page.goto(serve.at(`/runs/${fixture.runs[1].run.id}`));
    await page.locator('.resume-run').waitFor();
    expect(await page.locator('.no-resume').count()).toBe(0);
  });

  it('warms up, trains, stops and resumes a real run from the Run view', async () => {
    const overrides = [
      'trainer.backend=wasm', 'model.n_layer=1', 'model.d_model=32', 'model.d_ff=64',
      'es_manager.val.env_groups=4', 'es_manager.val.env_configs.n_groups=[4]',
      // The view polls every 2 s: a warm start of some seconds even on an idle fast machine (150
      // steps took under 3 s on an idle 2-core one, and the view once never saw `warming up`).
      'warm_start.steps=600', 'trainer.test_freq=0', 'trainer.save_freq=1', 'trainer.total_training_steps=200',
    ];
    const { runId } = (await callApi('startRun', [{ configPath: join(root, 'configs/bandit.yaml'), overrides, name: 'stop-me' }])) as { runId: number };
    await page.goto(serve.at(`/runs/${runId}`));
    const status = page.locator('.bar .status');
    const seen = new Set<string>();
    await expect
      .poll(async () => {
        seen.add(await status.innerText());
        return seen.has('running');
      }, { timeout: 120_000, interval: 100 })
      .toBe(true);
    expect(seen.has('warming up')).toBe(true);
    expect(seen.has('queued')).toBe(false);
    await expect.poll(() => page.locator('.progress-text').innerText(), { timeout: 60_000 }).toMatch(/^iteration [1-9]\d* \/ 200$/);

    await page.locator('.stop-run').click();
    await expect.poll(() => status.innerText(), { timeout: 120_000 }).toBe('stopped');
    const stoppedAt = Number(/iteration (\d+)/.exec(await page.locator('.progress-text').innerText())![1]);
    expect(await page.locator('.stop-run').count()).toBe(0);

    await page.locator('.resume-run').click();
    // The buttons wait for the trainer process to start: the view says so meanwhile.
    await expect.poll(() => page.locator('.action-status').innerText(), { interval: 50 }).toMatch(/^Resuming: starting a trainer process/);
    await expect.poll(() => status.innerText(), { timeout: 60_000 }).toMatch(/^(resuming|running)$/);
    await expect
      .poll(async () => Number(/iteration (\d+)/.exec(await page.locator('.progress-text').innerText())![1]), { timeout: 120_000 })
      .toBeGreaterThan(stoppedAt);
    await saveScreenshot(page, shots.dir, 'run-live');
    await page.locator('.stop-run').click();
    await expect.poll(() => status.innerText(), { timeout: 120_000 }).toBe('stopped');
  }, 600_000);

  it('continues a completed run to more iterations from the Run view', async () => {
    const overrides = [
      'trainer.backend=wasm', 'model.n_layer=1', 'model.d_model=32', 'model.d_ff=64',
      'es_manager.val.env_groups=4', 'es_manager.val.env_configs.n_groups=[4]',
      'warm_start.steps=3', 'trainer.test_freq=0', 'trainer.save_freq=1', 'trainer.total_training_steps=2',
    ];
    const { runId } = (await callApi('startRun', [{ configPath: join(root, 'configs/bandit.yaml'), overrides, name: 'continue-me' }])) as { runId: number };
    await page.goto(serve.at(`/runs/${runId}`));
    const status = page.locator('.bar .status');
    await expect.poll(() => status.innerText(), { timeout: 180_000 }).toBe('completed');
    // The default lies past the end: 2 + 10.
    expect(await page.locator('input[name=continueTo]').inputValue()).toBe('12');
    await page.locator('input[name=continueTo]').fill('2');
    expect(await page.locator('.continue-run').isDisabled()).toBe(true);
    expect(await page.locator('.continue-problem').innerText()).toBe('iterations: a whole number above 2');
    await page.locator('input[name=continueTo]').fill('4');
    await page.locator('.continue-run').click();
    await expect.poll(() => page.locator('.progress-text').innerText(), { timeout: 180_000 }).toMatch(/^iteration 4( \/ 4)?$/);
    await expect.poll(() => status.innerText(), { timeout: 180_000 }).toBe('completed');
  }, 600_000);
});
