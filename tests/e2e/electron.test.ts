// Electron smoke test: the real app (built main, preload and renderer) on a fixture data folder,
// driven by Playwright's Electron support. Runs wherever the Electron binary is installed;
// elsewhere it skips, and the skip reporter prints one line saying so.
import { statSync } from 'node:fs';
import { _electron as electron, type ElectronApplication } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFixtureDataDir, makeTempDir, type FixtureDataDir, type TempDir } from '../helpers/fixtures';
import { NEEDS_ELECTRON } from '../setup/requirements';
import { ensureBuilt, root } from './harness';
import { saveScreenshot } from './screenshots';

const installed = NEEDS_ELECTRON.present();

let app: ElectronApplication | undefined;
let fixture: FixtureDataDir | undefined;
let shots: TempDir | undefined;

describe.skipIf(!installed)('the desktop app', () => {
  afterAll(async () => {
    await app?.close();
    fixture?.cleanup();
    shots?.cleanup();
  });

  it('opens the runs table over IPC, refuses navigation away, and shows a run', async () => {
    ensureBuilt('out/main/index.js');
    fixture = makeFixtureDataDir({ iterations: 3 });
    shots = process.env.TURNLAB_E2E_SHOTS ? { dir: process.env.TURNLAB_E2E_SHOTS, cleanup: () => {} } : makeTempDir('turnlab-electron-');
    const executablePath = (await import('electron')).default as unknown as string;
    app = await electron.launch({
      executablePath,
      args: [root, '--no-sandbox'],
      env: { ...process.env, TURNLAB_DATA_DIR: fixture.dir } as Record<string, string>,
    });
    const page = await app.firstWindow();
    await page.locator('.run-row').first().waitFor();
    expect(await page.locator('.run-row').count()).toBe(fixture.runs.length);
    // The renderer has no Node and only the contract's bridge.
    expect(await page.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
    expect(await page.evaluate(() => typeof (globalThis as unknown as { turnlab: { listRuns: unknown } }).turnlab.listRuns)).toBe('function');

    const before = page.url();
    await page.evaluate(() => (globalThis as unknown as { location: { assign(url: string): void } }).location.assign('https://example.com/'));
    await page.waitForTimeout(300);
    expect(page.url()).toBe(before);

    await page.locator(`.run-row[data-run-id="${fixture.runs[0].run.id}"]`).click();
    await page.locator('.metric-chart canvas').first().waitFor();
    const shot = await saveScreenshot(page, shots.dir, 'electron-run');
    expect(statSync(shot).size).toBeGreaterThan(1000);
  }, 120_000);
});
