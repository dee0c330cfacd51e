// End to end with real training: issue 21, point 11. The New run form starts a group of runs
// that differ only by seed; the Runs view shows them as one group, "Compare seeds" opens
// them in Compare as one mean line with a seed band, "Stop group" stops a group whole, and a
// sweep started here shows its runs by its tag.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDto } from '../../preload/contract';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { repoRoot, TINY_OVERRIDES } from '../helpers/turnlab-cli';
import { ensureBuilt, hasChromium, launchBrowser, startServe, type OpenBrowser, type Serve } from './harness';
import { seriousViolations } from './axe';
import { saveScreenshot, screenshotFolder } from './screenshots';

const TINY = [...TINY_OVERRIDES, 'trainer.test_freq=1', 'trainer.save_freq=1'];
/** Two trainings on 2 shared cores: generous, though the group takes well under a minute. */
const TEST_MS = 300_000;

let data: TempDir;
let shots: TempDir;
let serve: Serve;
let browser: OpenBrowser;
let page: Page;

async function call<T>(method: string, ...args: unknown[]): Promise<T> {
  const response = await fetch(new URL(`/api/${method}`, serve.url), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${serve.token}` },
    body: JSON.stringify(args),
  });
  const body = (await response.json()) as { result: T; error?: { message: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  return body.result;
}

const runsBySeed = async () => (await call<RunDto[]>('listRuns')).sort((a, b) => a.seed - b.seed);

async function shot(name: string): Promise<void> {
  const path = await saveScreenshot(page, shots.dir, name);
  expect(statSync(path).size).toBeGreaterThan(1000);
}

describe.skipIf(!hasChromium)('seed groups from the New run form', () => {
  beforeAll(async () => {
    ensureBuilt();
    data = makeTempDir('turnlab-seeds-');
    shots = screenshotFolder();
    serve = await startServe(data.dir);
    browser = await launchBrowser({ viewport: { width: 1024, height: 700 }, bypassCSP: true });
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    data?.cleanup();
    shots?.cleanup();
  });

  it('checks the seeds field, then starts one run per seed', async () => {
    await page.goto(serve.url);
    await page.locator('.new-run-button').click();
    await page.locator('select[name=config]').selectOption({ label: 'bandit' });
    await page.locator('input[name=runName]').fill('e2e-seeds');
    await page.locator('input[name=totalIterations]').fill('2');
    await page.locator('textarea[name=extra]').fill(TINY.join('\n'));
    const start = page.locator('button.start');

    await page.locator('input[name=seeds]').fill('1,x');
    expect(await page.locator('.seeds-field .problem').innerText()).toMatch(/neither a count of seeds/);
    expect(await page.locator('input[name=seeds]').getAttribute('aria-invalid')).toBe('true');
    expect(await start.isDisabled()).toBe(true);

    await page.locator('input[name=seeds]').fill('2');
    await page.locator('input[name=concurrency]').fill('2');
    expect(await page.locator('.seeds-field .hint').innerText()).toBe('a group of 2 runs, seeds 0, 1, named <name>-s<seed>');
    // Start waits for the server's check of the whole config.
    await expect.poll(() => start.isEnabled(), { timeout: 30_000, interval: 200 }).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await shot('seeds-new-run');
    await start.click();
    await page.waitForURL(/#\/runs\/\d+$/, { timeout: 120_000 });

    await expect
      .poll(async () => (await runsBySeed()).map((r) => [r.name, r.seed, r.status, r.tags]), { timeout: 240_000, interval: 500 })
      .toEqual([
        ['e2e-seeds-s0', 0, 'completed', ['seeds:e2e-seeds']],
        ['e2e-seeds-s1', 1, 'completed', ['seeds:e2e-seeds']],
      ]);
  }, TEST_MS);

  it('shows the runs as one group in Runs and opens it in Compare with a seed band', async () => {
    // Both seeds start at once, so which run was created first (has the lower id) varies.
    const ids = (await runsBySeed()).map((r) => r.id);
    await page.locator('nav .tab', { hasText: 'Runs' }).click();
    const group = page.locator('.seed-group[data-group="e2e-seeds"]');
    await group.waitFor();
    expect(await group.locator('.group-size').innerText()).toBe('2 seeds (0, 1)');
    expect(await group.locator('.group-status').innerText()).toBe('2 completed');
    expect(await seriousViolations(page)).toEqual([]);
    await shot('seeds-runs');

    await group.locator('.filter-group').click();
    expect(await page.locator('select[name=tag]').inputValue()).toBe('seeds:e2e-seeds');
    expect(await page.locator('.run-row').count()).toBe(2);

    await group.locator('.compare-group').click();
    await page.waitForURL(/#\/compare\?/);
    const query = new URLSearchParams(page.url().split('?')[1]);
    expect(query.get('runs')).toBe(ids.join(','));
    expect(query.get('group')).toBe('1');
    expect(query.getAll('metric')).toEqual(['val/Bandit/success']);
    await page.locator('.compare-chart canvas').first().waitFor();
    expect(await page.locator('.group-toggle').isChecked()).toBe(true);
    expect(await page.locator('.metric-select').first().inputValue()).toBe('val/Bandit/success');
    const summary = page.locator('.summary-table tr.group-summary');
    await expect.poll(() => summary.count()).toBe(1);
    // Named by the group, not by its first run.
    expect(await summary.innerText()).toMatch(new RegExp(`e2e-seeds: 2 seeds \\(#(${ids[0]}, #${ids[1]}|${ids[1]}, #${ids[0]})\\)`));
    await shot('seeds-compare');
  }, TEST_MS);

  it('starts a sweep here from the New run form and shows its runs, by the sweep\'s tag', async () => {
    await page.goto(serve.url);
    await page.locator('.new-run-button').click();
    await page.locator('select[name=config]').selectOption({ label: 'bandit' });
    await page.locator('input[name=runName]').fill('e2e-sweep');
    await page.locator('input[name=totalIterations]').fill('1');
    await page.locator('textarea[name=extra]').fill(TINY.join('\n'));
    await page.locator('input[name=seeds]').fill('1');
    // Before Start, the server reads the grid against the config as the sweep would: a
    // combination no config accepts is said under the grid, a misspelt key keeps Start disabled.
    const grid = page.locator('textarea[name=grid]');
    const hint = page.locator('.sweep-fields .hint');
    const start = page.locator('button.start');
    await grid.fill('algorithm.adv_estimator=gae,grpo\nalgorithm.bi_level_gae=false,true');
    await expect.poll(() => hint.innerText(), { timeout: 30_000, interval: 200 }).toMatch(/^3 setting\(s\) x the seeds, a seed group each; 1 combination\(s\) left out, as no config accepts them: adv_estimator=grpo bi_level_gae=true: /);
    await grid.fill('algorithm.gama=0.9,1.0');
    await expect.poll(() => hint.innerText(), { timeout: 30_000, interval: 200 }).toMatch(/^the grid line 'algorithm\.gama=0\.9,1\.0' .*did you mean `algorithm\.gamma`\?$/);
    expect(await start.isEnabled()).toBe(false);
    await grid.fill('algorithm.gamma=0.9,1.0');
    await expect.poll(() => start.isEnabled(), { timeout: 30_000, interval: 200 }).toBe(true);
    await start.click();
    // The table narrows to the sweep: its first group's run at once, the second's when it starts.
    await expect.poll(() => page.locator('select[name=tag]').inputValue(), { timeout: 60_000 }).toMatch(/^sweep:e2e-sweep-\d{8}-\d{6}$/);
    const tag = await page.locator('select[name=tag]').inputValue();
    await expect.poll(() => page.locator('.run-row').count(), { timeout: 240_000, interval: 500 }).toBe(2);
    await expect
      .poll(async () => (await call<RunDto[]>('listRuns')).filter((r) => r.tags.includes(tag)).map((r) => [r.name, r.status, r.tags]).sort(), { timeout: 240_000, interval: 500 })
      .toEqual([
        ['e2e-sweep-gamma=0.9-s0', 'completed', ['seeds:e2e-sweep-gamma=0.9', tag]],
        ['e2e-sweep-gamma=1.0-s0', 'completed', ['seeds:e2e-sweep-gamma=1.0', tag]],
      ]);

    // The sweep has a line of its own above its seed groups: its grid read back from the runs'
    // configs, how far it is, its best setting, and the way into Compare by setting.
    const name = tag.slice('sweep:'.length);
    const sweep = page.locator(`.sweep[data-sweep="${name}"]`);
    await expect.poll(() => sweep.locator('.group-status').innerText(), { timeout: 30_000, interval: 300 }).toBe('2 completed');
    expect(await sweep.locator('.sweep-shape').innerText()).toBe('2 settings x 1 seed');
    expect(await sweep.locator('.sweep-keys').innerText()).toBe('algorithm.gamma');
    // One iteration of a bandit may leave both settings equal: then neither is named the best.
    const best = await sweep.locator('.sweep-best').innerText();
    const scores = await Promise.all(['0.9', '1.0'].map(async (g) => page.locator(`.seed-group[data-group="e2e-sweep-gamma=${g}"] .group-best`).innerText()));
    expect(best).toMatch(scores[0] === scores[1] ? /^best 2 settings tied \(\d+\.\d%\)$/ : /^best gamma=(0\.9|1) \(\d+\.\d%\)$/);
    await page.locator('select[name=tag]').selectOption('');
    await sweep.locator('.filter-sweep').click();
    await expect.poll(() => page.locator('select[name=tag]').inputValue()).toBe(tag);
    const ids = (await call<RunDto[]>('listRuns')).filter((r) => r.tags.includes(tag)).map((r) => r.id);
    await sweep.locator('.compare-sweep').click();
    await page.waitForURL(/#\/compare\?/);
    const query = new URLSearchParams(page.url().split('?')[1]);
    expect(query.get('runs')!.split(',').map(Number).sort()).toEqual(ids.sort());
    expect(query.get('group')).toBe('1');
  }, TEST_MS);

  it('stops a group whose seeds wait in the queue: Stop group stops the running seed, and the others never start', async () => {
    // Far more iterations than the test waits for: only the stop ends the first run.
    const overrides = [...TINY_OVERRIDES, 'trainer.total_training_steps=100000', 'trainer.test_freq=0'];
    await call('startRun', { configPath: join(repoRoot, 'configs/bandit.yaml'), overrides, name: 'e2e-halt', seeds: [0, 1, 2], concurrency: 1 });
    await page.goto(serve.url);
    const group = page.locator('.seed-group[data-group="e2e-halt"]');
    await expect.poll(() => group.locator('.group-status').innerText(), { timeout: 60_000, interval: 300 }).toBe('1 running, 2 queued');
    expect(await group.locator('.group-size').innerText()).toBe('3 seeds (0, 1, 2)');
    const answered = page.waitForResponse((response) => response.url().includes('/api/stopSeedGroup'));
    await group.locator('.stop-group').click();
    expect(await (await answered).json()).toMatchObject({ result: { group: 'e2e-halt', cancelledSeeds: [1, 2], stoppedRuns: [{ name: 'e2e-halt-s0' }] } });
    await expect.poll(() => group.locator('.group-status').innerText(), { timeout: 120_000, interval: 300 }).toBe('1 stopped, 2 cancelled');
    expect(await group.locator('.stop-group').count()).toBe(0);
    // The seeds that never started stay part of the group, as cancelled, after a reload too.
    await page.reload();
    await expect.poll(() => group.locator('.group-size').innerText(), { timeout: 30_000 }).toBe('3 seeds (0, 1, 2)');
    expect(await group.locator('.group-status').innerText()).toBe('1 stopped, 2 cancelled');
    expect(await page.locator('.action-error').count()).toBe(0);
    const halted = (await runsBySeed()).filter((r) => r.tags.includes('seeds:e2e-halt'));
    expect(halted.map((r) => [r.name, r.status])).toEqual([['e2e-halt-s0', 'stopped']]);
    expect((await call<Array<{ cancelled: boolean }>>('queuedSeedRuns')).filter((s) => !s.cancelled)).toEqual([]);
  }, TEST_MS);

  it('stops a whole sweep: Stop sweep stops its running group, and the settings after it never start', async () => {
    const overrides = [...TINY_OVERRIDES, 'trainer.total_training_steps=100000', 'trainer.test_freq=0'];
    const started = await call<{ sweep: string }>('startSweep', { configPath: join(repoRoot, 'configs/bandit.yaml'), overrides, name: 'e2e-long', grid: ['algorithm.gamma=0.9,1.0'], seeds: [0], executor: 'local', concurrency: 1 });
    await page.goto(serve.url);
    const sweep = page.locator(`.sweep[data-sweep="${started.sweep}"]`);
    await expect.poll(() => sweep.locator('.group-status').innerText(), { timeout: 60_000, interval: 300 }).toBe('1 running');
    await sweep.locator('.stop-sweep').click();
    await expect.poll(() => sweep.locator('.group-status').innerText(), { timeout: 120_000, interval: 300 }).toBe('1 stopped');
    expect(await sweep.locator('.stop-sweep').count()).toBe(0);
    // Past the moment the next setting would have started: still the one run.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const swept = (await call<RunDto[]>('listRuns')).filter((r) => r.tags.includes(`sweep:${started.sweep}`));
    expect(swept.map((r) => [r.name, r.status])).toEqual([['e2e-long-gamma=0.9-s0', 'stopped']]);
    // The sweep's stored plan keeps the setting it never started in view.
    await page.reload();
    await expect.poll(() => sweep.locator('.sweep-shape').innerText(), { timeout: 30_000 }).toBe('1 of 2 settings started x 1 seed');
    expect(await sweep.locator('.sweep-keys').innerText()).toBe('algorithm.gamma');
  }, TEST_MS);
});
