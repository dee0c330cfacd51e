// End to end: issue 21, points 9 and 10, and issue 20's model folder. The New run form checks
// each field as it is typed (the server checks the whole config as the trainer would), says what
// is wrong beside the field, and keeps Start disabled until every field is valid; the form and
// the YAML editor hand their edits to each other; only backends that start are offered.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { hasChromium, openWorkbench, type OpenWorkbench } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';

let page: Page;
let wb: OpenWorkbench;
let models: TempDir;
let shots: TempDir;
/** The server's check can take seconds (it reads a model folder's tokenizer), longer than poll's default. */
const ANSWER = { timeout: 30_000 };

describe.skipIf(!hasChromium)('New run form validation', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 3 }, browser: { viewport: { width: 1024, height: 900 } } });
    ({ page } = wb);
    models = makeTempDir('turnlab-form-models-');
    shots = screenshotFolder();
  });

  afterAll(async () => {
    await wb?.close();
    models?.cleanup();
  });

  const problem = (field: string) => page.locator(`.field-error[data-field="${field}"]`);
  const start = () => page.locator('button.start');
  /** The files the workbench wrote for edited text: none may be left after checks alone. */
  const editedFiles = () => (existsSync(join(wb.fixture.dir, 'configs')) ? readdirSync(join(wb.fixture.dir, 'configs')) : []);

  it('marks each bad field beside it and disables Start until all are fixed', async () => {
    await page.locator('.new-run-button').click();
    await page.locator('select[name=config]').selectOption({ label: 'bandit' });
    const start = page.locator('button.start');
    await expect.poll(() => start.isEnabled(), ANSWER).toBe(true);
    // The overrides' label reads as one line, not a word column beside its wide text box.
    expect((await page.locator('label.extra > span').boundingBox())!.height).toBeLessThan(24);

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
    await expect.poll(() => start.isEnabled(), ANSWER).toBe(true);

    // The YAML editor keeps the form's edits.
    await page.locator('input[type=radio][value=yaml]').check();
    const yaml = await page.locator('textarea[name=yaml]').inputValue();
    expect(yaml).toMatch(/total_training_steps: 10\b/);
    expect(yaml).toMatch(/lr: 1e-4\b|lr: 0\.0001\b/);
    expect(yaml).toMatch(/\bseed: 5\b/);

    // And the form reads back what was edited in the YAML editor.
    await page.locator('textarea[name=yaml]').fill(yaml.replace(/\bseed: 5\b/, 'seed: 9').replace(/total_training_steps: 10\b/, 'total_training_steps: 12'));
    await page.locator('input[type=radio][value=form]').check();
    expect(await page.locator('input[name=seed]').inputValue()).toBe('9');
    expect(await page.locator('input[name=totalIterations]').inputValue()).toBe('12');
    expect(await page.locator('textarea[name=extra]').inputValue()).toBe('');
    await page.locator('input[name=seed]').fill('11');
    await page.locator('input[type=radio][value=yaml]').check();
    const again = await page.locator('textarea[name=yaml]').inputValue();
    expect(again).toMatch(/\bseed: 11\b/);
    expect(again).toMatch(/total_training_steps: 12\b/);
    await page.locator('input[type=radio][value=form]').check();

    // A refused start says why, and the message goes once the form changes (it described that start).
    await page.locator('input[name=runName]').fill('-x');
    await start.click();
    const refusal = page.locator('.new-run p.error');
    await expect.poll(() => refusal.innerText().catch(() => ''), ANSWER).toContain("a run name cannot start with '-'");
    await page.locator('input[name=runName]').fill('x');
    await expect.poll(() => refusal.count()).toBe(0);
    await page.locator('.new-run .bar button').click();
  });

  it('puts what the server finds in the whole config beside the field, and in the editor names no file', async () => {
    await page.locator('.new-run-button').click();
    await page.locator('select[name=config]').selectOption({ label: 'bandit' });
    await expect.poll(() => start().isEnabled(), ANSWER).toBe(true);

    // A value only the config's own validation knows is wrong: a probability above 1.
    await page.locator('textarea[name=extra]').fill('algorithm.gamma=2');
    await expect.poll(() => problem('config').count(), ANSWER).toBe(1);
    expect(await problem('config').innerText()).toMatch(/algorithm\.gamma\b/);
    expect(await start().isDisabled()).toBe(true);
    await page.locator('textarea[name=extra]').fill('algorithm.gamma=0.9');
    await expect.poll(() => start().isEnabled(), ANSWER).toBe(true);
    expect(await problem('config').count()).toBe(0);

    await page.locator('input[type=radio][value=yaml]').check();
    const text = await page.locator('textarea[name=yaml]').inputValue();
    expect(text).toMatch(/gamma: 0\.9\b/);
    await page.locator('textarea[name=yaml]').fill(text.replace(/total_training_steps: \d+/, 'total_training_steps: ten'));
    await expect.poll(() => problem('yaml').count(), ANSWER).toBe(1);
    const said = await problem('yaml').innerText();
    expect(said).toMatch(/^line \d+: .*trainer\.total_training_steps\b.*integer/);
    expect(said).not.toMatch(/edited-|\.ya?ml|\/tmp\//);
    expect(await start().isDisabled()).toBe(true);
    await saveScreenshot(page, shots.dir, 'run-form-yaml-problem');
    expect(editedFiles()).toEqual([]);

    // A problem of the text no field can fix, seen from the form: said to be the YAML's, with the way back to it.
    await page.locator('textarea[name=yaml]').fill(`${text.trimEnd()}\ntrainr:\n  seed: 1\n`);
    await expect.poll(() => problem('yaml').innerText().catch(() => ''), ANSWER).toMatch(/trainr/);
    await page.locator('input[type=radio][value=form]').check();
    await expect.poll(() => problem('config').innerText().catch(() => ''), ANSWER).toMatch(/^the YAML's line \d+: unknown key `trainr`/);
    expect(await start().isDisabled()).toBe(true);
    await page.locator('.new-run .to-yaml').click();
    expect(await page.locator('textarea[name=yaml]').inputValue()).toContain('trainr:');

    await page.locator('textarea[name=yaml]').fill(text);
    await expect.poll(() => start().isEnabled(), ANSWER).toBe(true);
    expect(await problem('yaml').count()).toBe(0);
    await page.locator('.new-run .bar button').click();
  });

  it('offers only the backends that start here and lists the others with the reason', async () => {
    await page.locator('.new-run-button').click();
    await page.locator('select[name=config]').selectOption({ label: 'bandit' });
    const select = page.locator('select[name=backend]');
    // The probe runs once in a process of its own; until it answers the select offers every
    // backend, so the check waits for its answer, not for an option.
    await expect.poll(() => select.getAttribute('data-probed'), { timeout: 60_000 }).toBe('yes');
    expect(await select.locator('option[value=cpu]').count()).toBe(1);
    const offered = await select.locator('option').evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));
    expect(offered.slice(0, 2)).toEqual(['', 'auto']);
    for (const name of ['tensorflow', 'webgpu', 'wasm', 'cpu']) {
      const listed = page.locator(`.backends-unavailable li[data-backend="${name}"]`);
      // Each backend is either offered or listed as unable to start, with its reason.
      expect((offered.includes(name) ? 1 : 0) + (await listed.count())).toBe(1);
      if ((await listed.count()) === 1) expect((await listed.innerText()).length).toBeGreaterThan(`${name}: `.length + 5);
    }
    await saveScreenshot(page, shots.dir, 'run-form-backends');
    await page.locator('.new-run .bar button').click();
  });

  it('takes a pretrained model folder, checked on the server as the trainer opens it', async () => {
    const tiny = await writeRandomHfModel(join(models.dir, 'tiny-qwen2'), PRESETS['small-qwen2']);
    const empty = join(models.dir, 'empty');
    mkdirSync(empty);
    const missing = join(models.dir, 'missing');
    await page.locator('.new-run-button').click();
    await page.locator('select[name=config]').selectOption({ label: 'bandit' });
    await expect.poll(() => start().isEnabled(), ANSWER).toBe(true);
    const path = page.locator('input[name=model-path]');

    await path.fill(missing);
    await expect.poll(() => problem('model-path').count(), ANSWER).toBe(1);
    expect(await problem('model-path').innerText()).toBe(`Model folder ${missing} does not exist`);
    expect(await path.getAttribute('aria-invalid')).toBe('true');
    expect(await start().isDisabled()).toBe(true);

    await path.fill(empty);
    await expect.poll(() => problem('model-path').innerText(), ANSWER).toBe(`${empty} has no config.json: not a Hugging Face model folder (config.json, *.safetensors, tokenizer.json)`);
    expect(await start().isDisabled()).toBe(true);
    await saveScreenshot(page, shots.dir, 'run-form-model-folder-problem');

    await path.fill(tiny);
    await page.locator('input[name=model-loraRank]').fill('-1');
    await expect.poll(() => problem('model-loraRank').count(), ANSWER).toBe(1);
    expect(await problem('model-path').count()).toBe(0);
    expect(await start().isDisabled()).toBe(true);
    await page.locator('input[name=model-loraRank]').fill('4');
    await page.locator('input[name=model-loraAlpha]').fill('8');
    await expect.poll(() => start().isEnabled(), ANSWER).toBe(true);
    expect(await page.locator('.field-error').count()).toBe(0);
    expect(await page.locator('.overrides code').innerText()).toBe(
      `actor_rollout_ref.model.path=${tiny} actor_rollout_ref.model.lora_rank=4 actor_rollout_ref.model.lora_alpha=8`,
    );
    await saveScreenshot(page, shots.dir, 'run-form-model-folder');

    await page.locator('input[type=radio][value=yaml]').check();
    const yaml = await page.locator('textarea[name=yaml]').inputValue();
    expect(yaml).toContain(`path: ${tiny}`);
    expect(yaml).toMatch(/lora_rank: 4\b/);
    expect(yaml).toMatch(/lora_alpha: 8\b/);
    await page.locator('input[type=radio][value=form]').check();
    expect(await path.inputValue()).toBe(tiny);
    expect(await page.locator('input[name=model-loraRank]').inputValue()).toBe('4');
  });
});
