// End to end: a comparison lives in its address (issue 21, point 3). The settings come from
// the URL, changes go back into it, the top "Compare" link restores the last comparison after
// visiting other views, and the link opens the same comparison in another browser. A metric
// as the x axis is one of those settings, and so is the kind of smoothing.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import type { FixtureDataDir } from '../helpers/fixtures';
import { hasChromium, launchBrowser, openWorkbench, type OpenWorkbench, type Serve } from './harness';

let fixture: FixtureDataDir;
let serve: Serve;
let page: Page;
let wb: OpenWorkbench;
let ids: number[];

const METRIC = 'train/reward/mean';
const TOKENS = 'perf/total_generated_tokens';
/** Tokens each run generates an iteration: the third run twice the first's batch; the second logs none. */
const TOKENS_PER_ITERATION = [1000, 0, 2000];

const STEPS = 'perf/total_env_steps';
/** Environment steps an iteration: the first two runs step at different rates, so their x values interleave. */
const STEPS_PER_ITERATION = [100, 150, 0];

/** The trainer's running totals, for the runs that log them. */
function addTokenCounts(dataDir: string): void {
  const store = openStore(dataDir);
  try {
    const runs = store.runs.list().sort((a, b) => a.id - b.id);
    runs.forEach((run, index) => {
      const iterations = store.metrics.series(run.id, METRIC).map((p) => p.iteration);
      for (const [name, perIteration] of [[TOKENS, TOKENS_PER_ITERATION[index]], [STEPS, STEPS_PER_ITERATION[index]]] as const) {
        if (!perIteration) continue;
        store.metrics.insert(iterations.map((iteration) => ({ runId: run.id, name, iteration, value: iteration * perIteration, wallTime: 1_735_689_600_000 + iteration })));
      }
    });
  } finally {
    store.close();
  }
}

/** What the controls show, to compare against what the address says. */
async function controls(on: Page) {
  return {
    metric: await on.locator('.metric-select').inputValue(),
    smoothing: await on.locator('.smoothing-amount').inputValue(),
    xAxis: await on.locator('.x-axis-select').inputValue(),
    log: await on.locator('.log-toggle').isChecked(),
    group: await on.locator('.group-toggle').isChecked(),
    band: await on.locator('.band-select').inputValue(),
    members: await on.locator('.members-toggle').isChecked(),
    picked: await on.locator('.run-pick:checked').count(),
  };
}

const EXPECTED = { metric: METRIC, smoothing: '0.6', xAxis: 'relative', log: true, group: true, band: 'minmax', members: false, picked: 2 };

describe.skipIf(!hasChromium)('Compare state in the URL', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 5 }, addRuns: addTokenCounts, browser: { viewport: { width: 1440, height: 900 } } });
    ({ fixture, serve, page } = wb);
    ids = [fixture.runs[0].run.id, fixture.runs[2].run.id];
  });

  afterAll(async () => {
    await wb?.close();
  });

  it('reads every setting from the address and writes changes back', async () => {
    const query = `runs=${ids.join(',')}&metric=${encodeURIComponent(METRIC)}&smooth=0.6&x=relative&group=1&band=minmax&members=0&log=1`;
    await page.goto(serve.at(`/compare?${query}`));
    await page.locator('.compare-chart canvas').first().waitFor();
    await expect.poll(() => controls(page)).toEqual(EXPECTED);

    await page.locator('.x-axis-select').selectOption('iteration');
    await expect.poll(() => decodeURIComponent(page.url())).not.toContain('x=relative');
    await page.locator('.x-axis-select').selectOption('relative');
    await expect.poll(() => page.url()).toContain('x=relative');
  });

  it('keeps the comparison when leaving Compare and coming back through the top link', async () => {
    const before = page.url();
    await page.locator('nav .tab', { hasText: 'Runs' }).click();
    await page.locator('.run-row').first().waitFor();
    await page.locator(`.run-row[data-run-id="${ids[0]}"]`).click();
    await page.locator('.metric-chart').first().waitFor();
    await page.locator('nav .compare-tab').click();
    await page.locator('.compare-chart canvas').first().waitFor();
    expect(page.url()).toBe(before);
    await expect.poll(() => controls(page)).toEqual(EXPECTED);
  });

  it('opens the shared link as the same comparison in another browser', async () => {
    const link = await page.locator('.share-link').inputValue();
    expect(link).toBe(page.url());
    expect(link).not.toContain('token');
    const other = await launchBrowser({ viewport: { width: 1024, height: 700 } });
    try {
      // The recipient signs in to their own serve with its token, then opens the link.
      await other.page.goto(serve.url);
      await other.page.locator('.run-row').first().waitFor();
      await other.page.goto(link);
      await other.page.locator('.compare-chart canvas').first().waitFor();
      await expect.poll(() => controls(other.page)).toEqual(EXPECTED);
    } finally {
      await other.close();
    }
  });

  it('plots against another metric: the run with twice the batch reaches the same tokens in half the iterations', async () => {
    const [small, none, large] = fixture.runs.map((r) => r.run.id);
    await page.goto(serve.at(`/compare?runs=${small},${none},${large}&metric=${encodeURIComponent(METRIC)}`));
    await page.locator('.compare-chart canvas').first().waitFor();
    await page.locator('.x-axis-select').selectOption(`metric:${TOKENS}`);
    await expect.poll(() => decodeURIComponent(page.url())).toContain(`x=metric:${TOKENS}`);
    // The run that never logged the count is said, not silently dropped.
    await expect.poll(() => page.locator('.x-missing').innerText()).toBe(`Run #${none} does not log ${TOKENS}, so it is not drawn against it.`);

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.export-plotted').click()]);
    const rows = parse(readFileSync((await download.path())!, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(new Set(rows.map((r) => r.x_axis))).toEqual(new Set([`metric:${TOKENS}`]));
    expect(rows.some((r) => r.run_ids === String(none))).toBe(false);
    const xsOf = (id: number) => rows.filter((r) => r.run_ids === String(id) && r.kind === 'run').map((r) => [Number(r.iteration), Number(r.x)]);
    expect(xsOf(small).length).toBeGreaterThan(0);
    for (const [iteration, x] of xsOf(small)) expect(x).toBe(iteration * 1000);
    for (const [iteration, x] of xsOf(large)) expect(x).toBe(iteration * 2000);
    // The address alone brings the axis back; a metric with no name is the default axis.
    await page.reload();
    await page.locator('.compare-chart canvas').first().waitFor();
    await expect.poll(() => page.locator('.x-axis-select').inputValue()).toBe(`metric:${TOKENS}`);
    await page.goto(serve.at(`/compare?runs=${small}&metric=${encodeURIComponent(METRIC)}&x=metric:`));
    await expect.poll(() => page.locator('.x-axis-select').inputValue()).toBe('iteration');
  });

  it('lists every run at the cursor when their x values do not coincide', async () => {
    const [first, second] = fixture.runs.map((r) => r.run);
    await page.goto(serve.at(`/compare?runs=${first.id},${second.id}&metric=${encodeURIComponent(METRIC)}&x=metric:${STEPS}`));
    const canvas = page.locator('.compare-chart canvas').first();
    await canvas.waitFor();
    const box = (await canvas.boundingBox())!;
    const tooltip = page.locator('.chart-tooltip');
    // Steps 100..500 against 150..750: at most places one run's point is nearer than the other's,
    // and ECharts' own axis tooltip listed that run alone.
    for (const fraction of [0.3, 0.45, 0.6]) {
      await expect
        .poll(async () => {
          await page.mouse.move(box.x + box.width * fraction, box.y + box.height / 2);
          return (await tooltip.count()) > 0 && (await tooltip.first().isVisible()) ? tooltip.first().innerText() : '';
        })
        .toMatch(new RegExp(`^${STEPS} = \\d+\\n.*${first.name}.*\\n.*${second.name}`));
    }
  });

  it('smooths by another kind: the menu sets it, the slider its amount, the address and the export say it', async () => {
    const [run] = fixture.runs.map((r) => r.run);
    await page.goto(serve.at(`/compare?runs=${run.id}&metric=${encodeURIComponent(METRIC)}&smooth=0.6`));
    await page.locator('.compare-chart canvas').first().waitFor();
    await page.locator('.smoothing-kind').selectOption('running');
    // A weight of 0.6 is no window: the running mean starts at its own 9 points.
    await expect.poll(() => decodeURIComponent(page.url())).toContain('smooth=9&smoothKind=running');
    await expect.poll(() => page.locator('.controls').innerText()).toContain('window 9 points');
    expect(await page.locator('.smoothing-amount').getAttribute('max')).toBe('100');

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.export-plotted').click()]);
    const rows = parse(readFileSync((await download.path())!, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    const smoothed = rows.filter((r) => r.kind === 'run');
    const raw = rows.filter((r) => r.kind === 'raw_run').map((r) => Number(r.value));
    expect(raw.length).toBe(5);
    // Nine points centred on any of five reach all five: every smoothed point is their mean.
    const mean = raw.reduce((a, b) => a + b, 0) / raw.length;
    expect(smoothed.map((r) => Number(r.value))).toEqual(raw.map(() => expect.closeTo(mean, 9)));
    expect(smoothed[0]).toMatchObject({ smoothing: '9', smoothing_kind: 'running' });
    expect(smoothed[0].series).toMatch(/\(running mean 9\)$/);

    // The address alone brings the kind back; an amount the kind cannot take is no smoothing.
    await page.reload();
    await expect.poll(() => page.locator('.smoothing-kind').inputValue()).toBe('running');
    await expect.poll(() => page.locator('.smoothing-amount').inputValue()).toBe('9');
    await page.goto(serve.at(`/compare?runs=${run.id}&metric=${encodeURIComponent(METRIC)}&smooth=0.6&smoothKind=gaussian`));
    await expect.poll(() => page.locator('.controls').innerText()).toContain('σ 0.6 points');
    await page.goto(serve.at(`/compare?runs=${run.id}&metric=${encodeURIComponent(METRIC)}&smooth=0.6&smoothKind=running`));
    await expect.poll(() => page.locator('.controls').innerText()).toContain('window 1 point');
  });

  it("draws a log x axis: the address keeps it, the clock's 0 s is left out, wall time has none", async () => {
    const [run] = fixture.runs.map((r) => r.run);
    await page.goto(serve.at(`/compare?runs=${run.id}&metric=${encodeURIComponent(METRIC)}&x=relative`));
    await page.locator('.compare-chart canvas').first().waitFor();
    const exported = async () => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.export-plotted').click()]);
      const rows = parse(readFileSync((await download.path())!, 'utf8'), { columns: true }) as Array<Record<string, string>>;
      return rows.filter((r) => r.kind === 'run').map((r) => Number(r.x));
    };
    const linear = await exported();
    expect(linear[0]).toBe(0);
    await page.locator('.log-x-toggle').check();
    await expect.poll(() => page.url()).toContain('logx=1');
    await expect.poll(exported).toEqual(linear.slice(1));
    await page.reload();
    await expect.poll(() => page.locator('.log-x-toggle').isChecked()).toBe(true);
    await page.locator('.x-axis-select').selectOption('wall');
    await expect.poll(() => page.locator('.log-x-toggle').isDisabled()).toBe(true);
    // Drawn on a linear clock again, every point back.
    await expect.poll(async () => (await exported()).length).toBe(linear.length);
  });

  it('groups by a config key the runs differ by: the menu lists it, the address keeps it, the legend names each value', async () => {
    const [first, second, third] = fixture.runs.map((r) => r.run.id);
    await page.goto(serve.at(`/compare?runs=${first},${second},${third}&metric=${encodeURIComponent(METRIC)}&group=1`));
    await page.locator('.compare-chart canvas').first().waitFor();
    const offered = (await page.locator('.group-by-select option').allInnerTexts()).map((text) => text.trim());
    expect(offered[0]).toBe('runs that differ only by seed');
    expect(offered).toContain('by algorithm.adv_estimator');
    expect(offered).not.toContain('by seed');
    await page.locator('.group-by-select').selectOption('algorithm.adv_estimator');
    await expect.poll(() => decodeURIComponent(page.url())).toContain('groupby=algorithm.adv_estimator');
    // The two GRPO runs (one a fork, with another seed) are one mean; the PPO run is itself.
    await expect.poll(() => page.locator('.chart-legend').first().innerText()).toContain(`adv_estimator=grpo: 2 runs (#${first}, #${third})`);
    await page.reload();
    await expect.poll(() => page.locator('.group-by-select').inputValue()).toBe('algorithm.adv_estimator');
    await page.locator('.group-by-select').selectOption('');
    await expect.poll(() => page.url()).not.toContain('groupby');
  });

  it('saves a chart as a PNG at twice its pixels, named by the metric and the runs', async () => {
    const [run] = fixture.runs.map((r) => r.run);
    await page.goto(serve.at(`/compare?runs=${run.id}&metric=${encodeURIComponent(METRIC)}`));
    await page.locator('.compare-chart canvas').first().waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.save-image').first().click()]);
    expect(download.suggestedFilename()).toBe(`turnlab-compare-train_reward_mean-runs-${run.id}.png`);
    const png = readFileSync((await download.path())!);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const size = await page.locator('.compare-chart').first().evaluate((el) => [el.clientWidth, el.clientHeight]);
    // IHDR's width and height; the canvas fills the box's content area (its border is outside).
    expect(Math.abs(png.readUInt32BE(16) - 2 * size[0])).toBeLessThanOrEqual(4);
    expect(Math.abs(png.readUInt32BE(20) - 2 * size[1])).toBeLessThanOrEqual(4);
    // The chart is drawn as before: the page's own legend, no title in the canvas.
    await expect.poll(() => page.locator('.chart-legend').first().innerText()).toContain(run.name);
  });
  it('leaves the reader on the view they went to when an answer for Compare comes after they left', async () => {
    // Compare writes its first panel's metric into the address once the runs' metric names
    // arrive; on a busy machine they came after a click on Runs and took the reader back.
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    await page.route('**/api/compareMetricNames', async (route) => {
      await held;
      await route.continue();
    });
    try {
      const asked = page.waitForRequest('**/api/compareMetricNames');
      await page.goto(serve.at(`/compare?runs=${ids.join(',')}`));
      await asked;
      await page.locator('nav .tab', { hasText: 'Runs' }).click();
      await page.locator('.run-row').first().waitFor();
      const answered = page.waitForResponse('**/api/compareMetricNames');
      release();
      await answered;
      // Long enough for the answer to reach the router, were it still to write the address.
      await page.waitForTimeout(500);
      expect(new URL(page.url()).hash).toBe('#/runs');
      expect(await page.locator('.run-row').count()).toBe(fixture.runs.length);
    } finally {
      await page.unroute('**/api/compareMetricNames');
    }
  });
});
