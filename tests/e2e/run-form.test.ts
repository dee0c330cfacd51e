// End to end: issue 21, point 9 (in part). The New run form checks each field as it is typed,
// says what is wrong beside the field, and keeps Start disabled until every field is valid.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, openWorkbench, type OpenWorkbench } from './harness';

let page: Page;
let wb: OpenWorkbench;

describe.skipIf(!hasChromium)('New run form validation', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 3 }, browser: { viewport: { width: 1024, height: 700 } } });
    ({ page } = wb);
  });

  afterAll(async () => {
    await wb?.close();
  });

  it('marks each bad field beside it and disables Start until all are fixed', async () => {
    await page.locator('.new-run-button').click();
    await page.locator('select[name=config]').selectOption({ label: 'bandit' });
    const start = page.locator('button.start');
    await expect.poll(() => start.isEnabled()).toBe(true);
    const problem = (field: string) => page.locator(`.field-error[data-field="${field}"]`);

    await page.locator('input[name=totalIterations]').fill('ten');
    await page.locator('input[name=learningRate]').fill('-1');
    await page.locator('textarea[name=extra]').fill('trainer.seed 5');
    expect(await problem('totalIterations').innerText()).toBe('a whole number of iterations, 1 or more');
    expect(await problem('learningRate').innerText()).toBe('a positive number, e.g. 1e-4');
    expect(await problem('extra').innerText()).toBe("line 1: 'trainer.seed 5' is not key=value");
    expect(await page.locator('input[name=totalIterations]').getAttribute('aria-invalid')).toBe('true');
    expect(await start.isDisabled()).toBe(true);

    await page.locator('input[name=totalIterations]').fill('10');
    expect(await problem('totalIterations').count()).toBe(0);
    expect(await start.isDisabled()).toBe(true);
    await page.locator('input[name=learningRate]').fill('1e-4');
    await page.locator('textarea[name=extra]').fill('trainer.seed=5');
    expect(await page.locator('.field-error').count()).toBe(0);
    expect(await start.isEnabled()).toBe(true);

    // The YAML editor keeps the form's edits.
    await page.locator('input[type=radio][value=yaml]').check();
    const yaml = await page.locator('textarea[name=yaml]').inputValue();
    expect(yaml).toMatch(/total_training_steps: 10\b/);
    expect(yaml).toMatch(/lr: 1e-4\b|lr: 0\.0001\b/);
    expect(yaml).toMatch(/\bseed: 5\b/);
  });
});
