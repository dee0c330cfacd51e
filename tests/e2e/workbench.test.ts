// End to end: `turnlab serve` as a real process, Debian's Chromium driven by playwright-core.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { makeFixtureDataDir, type FixtureDataDir, type TempDir } from '../helpers/fixtures';
import { screenshotFolder } from './screenshots';

const root = resolve(__dirname, '../..');
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

let fixture: FixtureDataDir;
// Screenshots are kept in test-results/screenshots/ (or TURNLAB_E2E_SHOTS) to look at.
let shots: TempDir;
let serve: ChildProcess;
let serveExit: Promise<number | null>;
let serveErr = '';
let url: string;
let browser: Browser;
let page: Page;

function startServe(dataDir: string): Promise<string> {
  serve = spawn(process.execPath, [join(root, 'bin/turnlab.js'), 'serve', '--data-dir', dataDir, '--port', '0', '--no-open'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  serveExit = new Promise((resolveExit) => serve.on('exit', (code) => resolveExit(code)));
  serve.stderr!.on('data', (chunk: Buffer) => (serveErr += chunk.toString()));
  return new Promise((resolveUrl, reject) => {
    const lines = createInterface({ input: serve.stdout! });
    lines.once('line', (line) => resolveUrl(line.trim()));
    serve.once('exit', (code) => reject(new Error(`turnlab serve exited with ${code}: ${serveErr}`)));
  });
}

describe.skipIf(!existsSync(CHROMIUM))('workbench in a browser against turnlab serve', () => {
  beforeAll(async () => {
    if (!existsSync(join(root, 'out/renderer/index.html'))) {
      execFileSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: 'ignore' });
    }
    fixture = makeFixtureDataDir({ iterations: 5 });
    shots = screenshotFolder();
    url = await startServe(fixture.dir);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    if (serve && serve.exitCode === null) {
      serve.kill('SIGINT');
      await serveExit;
    }
    fixture?.cleanup();
    shots?.cleanup();
  });

  it('prints one URL line with the token', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32,}$/);
  });

  it('shows the runs table, then a run with charts, config and checkpoints', async () => {
    await page.goto(url);
    const rows = page.locator('.run-row');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(fixture.runs.length);
    await expect.poll(() => page.locator('.runs-table').innerText()).toContain('fork of #1');
    // The token leaves the address bar once the page has it.
    expect(new URL(page.url()).searchParams.has('token')).toBe(false);

    const first = fixture.runs[0].run;
    await page.locator(`.run-row[data-run-id="${first.id}"]`).click();
    await page.locator('.metric-chart canvas').first().waitFor();
    expect(await page.locator('h2').innerText()).toContain(first.name);
    expect(await page.locator('.metric-group h4').allInnerTexts()).toEqual(expect.arrayContaining(['train/', 'val/']));
    expect(await page.locator('.config pre').innerText()).toContain(':');
    expect(await page.locator('.checkpoints tbody tr').count()).toBe(fixture.runs[0].checkpoints.length);

    mkdirSync(shots.dir, { recursive: true });
    const shot = join(shots.dir, 'run.png');
    await page.screenshot({ path: shot });
    expect(statSync(shot).size).toBeGreaterThan(1000);
  });

  it('shows a failed run with its error text in full, after a reload without the token in the URL', async () => {
    const failed = fixture.runs.find((r) => r.run.status === 'failed')!.run;
    await page.goto(new URL(`/#/runs/${failed.id}`, url).toString());
    await page.reload();
    await page.locator('.run-error pre').waitFor();
    expect(await page.locator('.run-error pre').innerText()).toBe(failed.error);
  });

  it('keeps polling a running run until it finishes', async () => {
    const target = fixture.runs[2].run;
    const store = openStore(fixture.dir);
    try {
      store.runs.update(target.id, { status: 'running' });
      await page.goto(new URL(`/#/runs/${target.id}`, url).toString());
      await page.locator('.live').waitFor();
      store.runs.update(target.id, { status: 'completed' });
      await page.locator('.live').waitFor({ state: 'detached' });
      expect(await page.locator('.bar .status').innerText()).toBe('completed');
    } finally {
      store.close();
    }
  });

  it('stops on SIGINT with exit code 0', async () => {
    serve.kill('SIGINT');
    expect(await serveExit).toBe(0);
  });
});
