// End to end with real training: `turnlab serve` on an empty temp data folder, Debian's Chromium
// driven by playwright-core. Start a run from the UI and watch its chart grow, evaluate and fork
// a checkpoint, kill a trainer and resume it from the Checkpoints view, export CSV.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActiveTrainingDto, CheckpointDto, RunDto } from '../../preload/contract';
import { exportColumns } from '../../main/services/export';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { ensureBuilt, hasChromium, launchBrowser, root, startServe, type OpenBrowser, type Serve } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';

const TINY = [
  'trainer.backend=wasm',
  'model.n_layer=1',
  'model.d_model=32',
  'model.d_ff=64',
  'warm_start.steps=3',
  'es_manager.val.env_groups=4',
  'es_manager.val.env_configs.n_groups=[4]',
  'trainer.test_freq=2',
  'trainer.save_freq=1',
];
const STEP_MS = 120_000;
/** Training on 2 shared cores: generous, though each test takes well under a minute. */
const TEST_MS = 240_000;

let data: TempDir;
let shots: TempDir;
let serve: Serve;
let url: string;
let token: string;
let browser: OpenBrowser;
let page: Page;
let firstRun: number;

/** The API as the test sees it, beside the browser. */
async function call<T>(method: string, ...args: unknown[]): Promise<T> {
  const response = await fetch(new URL(`/api/${method}`, url), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(args),
  });
  const body = (await response.json()) as { result: T; error?: { message: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  return body.result;
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = STEP_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${serve.stderr()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const runOf = (runId: number) => call<RunDto>('getRun', runId);

async function shot(name: string): Promise<void> {
  const path = await saveScreenshot(page, shots.dir, name);
  expect(statSync(path).size).toBeGreaterThan(1000);
}

/** The number the Run view shows under "iterations". */
async function shownIterations(): Promise<number> {
  const text = await page.locator('.facts dt:text-is("iterations") + dd').innerText();
  return text === '-' ? 0 : Number(text);
}

describe.skipIf(!hasChromium)('workbench flows with real training', () => {
  beforeAll(async () => {
    ensureBuilt();
    data = makeTempDir('turnlab-flows-');
    shots = screenshotFolder();
    serve = await startServe(data.dir);
    ({ url, token } = serve);
    browser = await launchBrowser({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    data?.cleanup();
    shots?.cleanup();
  });

  it('starts a short run from the New run form and shows its chart growing', async () => {
    await page.goto(url);
    await page.locator('.new-run-button').click();
    await page.locator('select[name=config]').selectOption({ label: 'bandit' });
    await page.locator('input[name=runName]').fill('e2e-first');
    await page.locator('input[name=totalIterations]').fill('10');
    await page.locator('textarea[name=extra]').fill(TINY.join('\n'));
    await shot('new-run');
    await page.locator('button.start').click();
    await page.waitForURL(/#\/runs\/\d+$/, { timeout: STEP_MS });
    firstRun = Number(/#\/runs\/(\d+)$/.exec(page.url())![1]);
    expect((await runOf(firstRun)).config).toMatchObject({ trainer: { total_training_steps: 10, backend: 'wasm' } });

    // The view refreshes by itself, with no reload: it opened on a run with no iteration, then
    // shows one, later more. A fast machine can finish all ten between two polls, so "more" is
    // checked only when the first view caught the run part-way.
    const early = await until('a first iteration on screen', async () => {
      const n = await shownIterations();
      return n >= 1 ? n : undefined;
    });
    await page.locator('.metric-chart canvas').first().waitFor();
    if (early < 10) await until('more iterations on screen', async () => (await shownIterations()) > early);
    await until('completion on screen', async () => (await page.locator('.bar .status').innerText()) === 'completed');
    expect(await shownIterations()).toBe(10);
    // What the trainer logged, kept with the run: the backend it chose comes first.
    await page.locator('.run-log summary').click();
    await expect.poll(() => page.locator('.run-log pre').innerText()).toMatch(/^\d\d:\d\d:\d\d backend: wasm on CPU/);
    expect(await page.locator('.run-log summary').innerText()).toMatch(/^Log \(\d+ lines\)$/);
    // The code its trainer ran, from the same log, among the run's facts.
    const code = page.locator('.facts div', { has: page.locator('dt', { hasText: /^code$/ }) }).locator('dd');
    await expect.poll(() => code.innerText()).toMatch(/^turnlab \d+\.\d+\.\d+, (git [0-9a-f]{12}( with uncommitted changes)?|not a git checkout), Node v\d+/);
    await shot('run');
  }, TEST_MS);

  it("starts a new run from a finished run's config, with a setting changed in the form", async () => {
    await page.goto(serve.at(`/runs/${firstRun}`));
    await page.locator('.new-from-run').click();
    await page.waitForURL(/#\/runs$/, { timeout: STEP_MS });
    const config = page.locator('select[name=config]');
    await expect.poll(async () => (await config.locator('option:checked').innerText()).trim()).toBe(`run #${firstRun} e2e-first`);
    // The form reads the run's own settings, and the name it would get is the config's.
    await expect.poll(() => page.locator('input[name=totalIterations]').inputValue()).toBe('10');
    await page.locator('input[name=totalIterations]').fill('2');
    await page.locator('input[name=runName]').fill('e2e-again');
    await expect.poll(() => page.locator('button.start').isEnabled(), { timeout: STEP_MS }).toBe(true);
    await page.locator('button.start').click();
    await page.waitForURL(/#\/runs\/\d+$/, { timeout: STEP_MS });
    const again = await runOf(Number(/#\/runs\/(\d+)$/.exec(page.url())![1]));
    const first = await runOf(firstRun);
    expect(again.name).toBe('e2e-again');
    expect(again.config).toEqual({ ...first.config, trainer: { ...(first.config.trainer as object), total_training_steps: 2 } });
    await until('the second run completed', async () => ((await runOf(again.id)).status === 'completed' ? true : undefined));
  }, TEST_MS);

  it('evaluates a checkpoint and forks it with a changed setting, showing the lineage', async () => {
    await page.goto(serve.at(`/runs/${firstRun}/checkpoints`));
    const rows = page.locator('.checkpoint-row');
    await rows.first().waitFor();
    const checkpoints = await call<CheckpointDto[]>('listCheckpoints', firstRun);
    expect(await rows.count()).toBe(checkpoints.length);
    const forkFrom = checkpoints.find((c) => c.iteration === 2) ?? checkpoints[0];
    const row = page.locator(`.checkpoint-row[data-checkpoint-id="${forkFrom.id}"]`);

    await page.locator('input[name=episodes]').fill('4');
    await row.locator('button.evaluate').click();
    // The evaluation is stored and listed under its checkpoint.
    const evaluation = page.locator(`.evaluation-row[data-checkpoint-id="${forkFrom.id}"]`);
    await evaluation.first().waitFor({ timeout: STEP_MS });
    expect(await evaluation.first().innerText()).toMatch(/4 episodes[\s\S]*success/);
    await shot('checkpoints');

    await row.locator('button.fork').click();
    await page.locator('input[name=forkName]').fill('e2e-fork');
    await page.locator('.fork-panel input[name=learningRate]').fill('0.005');
    await page.locator('.fork-panel input[name=totalIterations]').fill(String(forkFrom.iteration + 1));
    await page.locator('button.start-fork').click();
    await page.waitForURL((u) => /#\/runs\/(\d+)$/.test(u.hash) && !u.hash.endsWith(`/runs/${firstRun}`), { timeout: STEP_MS });
    const forkId = Number(/#\/runs\/(\d+)$/.exec(page.url())![1]);
    const fork = await runOf(forkId);
    expect(fork).toMatchObject({ name: 'e2e-fork', parentRunId: firstRun, parentIteration: forkFrom.iteration });
    expect(fork.config).toMatchObject({ actor_rollout_ref: { actor: { optim: { lr: 0.005 } } } });

    await page.goto(serve.at('/runs'));
    const forkRow = page.locator(`.run-row[data-run-id="${forkId}"]`);
    await until('lineage in the runs table', async () =>
      (await forkRow.count()) > 0 && (await forkRow.innerText()).includes(`fork of #${firstRun} at iteration ${forkFrom.iteration}`),
    );
    await until('the fork to finish', async () => (await runOf(forkId)).status === 'completed');
  }, TEST_MS);

  it('survives a killed trainer: the run shows interrupted, and resuming it continues the iterations', async () => {
    const { runId } = await call<{ runId: number }>('startRun', {
      configPath: join(root, 'configs/bandit.yaml'),
      overrides: [...TINY, 'trainer.total_training_steps=60'],
      name: 'e2e-killed',
    });
    await until('a checkpoint at iteration 2', async () =>
      (await call<CheckpointDto[]>('listCheckpoints', runId)).some((c) => c.iteration >= 2),
    );
    const pid = (await call<ActiveTrainingDto[]>('activeTrainings')).find((a) => a.runId === runId)!.pid;
    process.kill(pid, 'SIGKILL');

    await page.goto(serve.at('/runs'));
    const row = page.locator(`.run-row[data-run-id="${runId}"]`);
    await until('interrupted in the runs table', async () => (await row.locator('.status').innerText()) === 'interrupted');
    expect(serve.exitCode).toBeNull();
    // The table follows the server-sent events (it would say "polling" without them).
    expect(await page.locator('.live-mode').innerText()).toBe('live');
    await shot('runs');

    const killedAt = (await runOf(runId)).iterations!;
    const latest = (await call<CheckpointDto[]>('listCheckpoints', runId)).at(-1)!;
    await page.goto(serve.at(`/runs/${runId}/checkpoints`));
    await page.locator(`.checkpoint-row[data-checkpoint-id="${latest.id}"] button.resume`).click();
    await page.waitForURL(new RegExp(`#/runs/${runId}$`));
    await until('iterations past the kill on screen', async () => (await shownIterations()) > Math.max(killedAt, latest.iteration));
    expect((await runOf(runId)).status).toBe('running');

    // Stop it from the Runs view; it saves a checkpoint and ends `stopped`. Delete waits for that.
    await page.goto(serve.at('/runs'));
    expect(await row.locator('button.delete').isDisabled()).toBe(true);
    await row.locator('button.stop').click();
    await until('stopped in the runs table', async () => (await row.locator('.status').innerText()) === 'stopped');

    // Resuming its first checkpoint asks first; agreeing continues the run from there, its later checkpoints gone.
    const [first, ...later] = await call<CheckpointDto[]>('listCheckpoints', runId);
    expect(later.length).toBeGreaterThan(0);
    await page.goto(serve.at(`/runs/${runId}/checkpoints`));
    const earliest = page.locator(`.checkpoint-row[data-checkpoint-id="${first.id}"]`);
    await earliest.locator('button.resume').click();
    // It names what goes, as the CLI's refusal does.
    const lastIteration = (await runOf(runId)).iterations!;
    const laterIterations = later.map((c) => c.iteration).join(', ');
    expect(await earliest.locator('.confirm').innerText()).toBe(
      `resume from iteration ${first.iteration}? This deletes what the run recorded after it (iterations ${first.iteration + 1}-${lastIteration}) and its later checkpoint${later.length === 1 ? '' : 's'} (iteration${later.length === 1 ? '' : 's'} ${laterIterations}); Fork keeps them.`,
    );
    await earliest.locator('button.confirm-action').click();
    await page.waitForURL(new RegExp(`#/runs/${runId}$`));
    expect(await page.locator('.action-error').count()).toBe(0);
    await until('the run training again', async () => (await runOf(runId)).status === 'running');
    const kept = (await call<CheckpointDto[]>('listCheckpoints', runId)).map((c) => c.id);
    for (const gone of later) expect(kept).not.toContain(gone.id);
    await page.goto(serve.at('/runs'));
    await row.locator('button.stop').click();
    await until('stopped again', async () => (await row.locator('.status').innerText()) === 'stopped');
  }, TEST_MS);

  it('exports metrics as CSV from the Runs view', async () => {
    await page.goto(serve.at('/runs'));
    await page.locator(`.run-row[data-run-id="${firstRun}"] .select-run`).check();
    await page.locator('select[name=exportWhat]').selectOption('metrics');
    await page.locator('select[name=exportFormat]').selectOption('csv');
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('button.export').click()]);
    expect(download.suggestedFilename()).toBe(`turnlab-metrics-run-${firstRun}-e2e-first.csv`);
    const file = join(data.dir, 'export.csv');
    await download.saveAs(file);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe(exportColumns('metrics').join(','));
    const names = await call<string[]>('metricNames', firstRun);
    const series = await call<Record<string, unknown[]>>('metricSeries', firstRun, names);
    const points = Object.values(series).reduce((n, s) => n + s.length, 0);
    expect(lines).toHaveLength(points + 1);
    expect(lines.slice(1).every((line) => line.startsWith(`${firstRun},e2e-first,`))).toBe(true);
  }, TEST_MS);
});
