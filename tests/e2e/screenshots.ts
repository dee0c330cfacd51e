import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import type { TempDir } from '../helpers/fixtures';

/**
 * Where e2e tests save their screenshots: `test-results/screenshots/` in the repository (kept
 * after the run, to look at), or TURNLAB_E2E_SHOTS when set.
 */
export function screenshotFolder(): TempDir {
  const dir = process.env.TURNLAB_E2E_SHOTS || join(resolve(import.meta.dirname, '../..'), 'test-results', 'screenshots');
  mkdirSync(dir, { recursive: true });
  return { dir, cleanup: () => {} };
}

/** Saves `<name>.png` of the page in `dir` (made when missing) and returns its path. */
export async function saveScreenshot(page: Page, dir: string, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, ...options });
  return path;
}
