// End to end (issue 20, Workbench): a LoRA run on a tiny random-weight Qwen2 folder, trained by
// the CLI, shows its model in the Run view (folder name, architecture, parameter count, LoRA
// settings), and its checkpoint exports as a Hugging Face folder from the Checkpoints view in
// Chromium against `turnlab serve`, to a path on the server; a from-scratch run shows its size
// and says why it has no such export.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { TINY_LAKE_OVERRIDES, tinyPretrainedLake } from '../helpers/tiny-lake';
import { seriousViolations } from './axe';
import { ensureBuilt, hasChromium, launchBrowser, root, startServe, type OpenBrowser, type Serve } from './harness';
import { saveScreenshot, screenshotFolder } from './screenshots';

let data: TempDir;
let shots: TempDir;
let serve: Serve;
let browser: OpenBrowser;
let page: Page;
let checkpointId: number;
/** The base model's parameters and the adapters', as the trainer's log line says them. */
let logged: { base: string; trainable: string };

const turnlab = (...args: string[]) =>
  execFileSync(process.execPath, [join(root, 'bin/turnlab.js'), '--data-dir', join(data.dir, 'data'), ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const sets = (values: string[]) => values.flatMap((v) => ['--set', v]);

describe.skipIf(!hasChromium)('a pretrained model in the workbench, in a browser against turnlab serve', () => {
  beforeAll(async () => {
    ensureBuilt();
    data = makeTempDir('turnlab-pretrained-e2e-');
    const modelDir = await writeRandomHfModel(join(data.dir, 'tiny-qwen2'), PRESETS['small-qwen2'], { seed: 5 });
    const trained = spawnSync(process.execPath, [join(root, 'bin/turnlab.js'), '--data-dir', join(data.dir, 'data'), 'train', '--config', 'configs/frozenlake-nonslip.yaml', '--name', 'qwen-lora',
      ...sets([...tinyPretrainedLake(modelDir), 'actor_rollout_ref.model.lora_rank=4', 'actor_rollout_ref.model.lora_alpha=8', 'trainer.total_training_steps=1'])], { cwd: root, encoding: 'utf8' });
    expect(trained.status).toBe(0);
    const [, base, trainable] = /Qwen2ForCausalLM: ([\d,]+) parameters.*: ([\d,]+) trainable/.exec(trained.stderr)!;
    logged = { base, trainable };
    turnlab('train', '--config', 'configs/frozenlake-nonslip.yaml', '--name', 'scratch',
      ...sets([...TINY_LAKE_OVERRIDES, 'trainer.total_training_steps=1', 'trainer.save_freq=1']));
    const store = openStore(join(data.dir, 'data'));
    try {
      checkpointId = store.checkpoints.latest(1)!.id;
    } finally {
      store.close();
    }
    shots = screenshotFolder();
    serve = await startServe(join(data.dir, 'data'));
    browser = await launchBrowser({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
    page = browser.page;
    await page.goto(serve.url);
    await page.locator('.run-row').first().waitFor();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    data?.cleanup();
    shots?.cleanup();
  });

  it('shows the model folder, architecture, parameter count and LoRA settings in the Run view', async () => {
    await page.goto(serve.at('/runs/1'));
    const line = page.locator('.model-line');
    await line.waitFor();
    expect(Number(logged.base.replace(/,/g, ''))).toBeGreaterThan(100_000);
    // The numbers the trainer's log line gave.
    expect(await line.innerText()).toBe(
      `model tiny-qwen2: Qwen2ForCausalLM, ${logged.base} parameters, LoRA rank 4 alpha 8 on q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj: ${logged.trainable} trainable`,
    );
    expect(await line.getAttribute('title')).toBe(join(data.dir, 'tiny-qwen2'));
    await saveScreenshot(page, shots.dir, 'run-view-pretrained-model');
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(serve.at('/runs/2'));
    await expect.poll(() => page.locator('.model-line[data-kind="scratch"]').innerText()).toMatch(
      /^model TurnLab transformer trained from scratch: 1 layer, d_model 32, [\d,]+ parameters$/,
    );
  });

  it('exports a checkpoint as a Hugging Face folder on the server and says where', async () => {
    await page.goto(serve.at('/runs/1/checkpoints'));
    const row = page.locator(`.checkpoint-row[data-checkpoint-id="${checkpointId}"]`);
    await row.locator('button.export-model').click();
    const panel = page.locator('.model-export-panel');
    await panel.waitFor();
    // Without a folder nothing is sent.
    await panel.locator('button.start-export').click();
    expect(await panel.locator('.export-problem').innerText()).toMatch(/name the output folder/);

    const out = join(data.dir, 'exported');
    await panel.locator('input[name=exportOut]').fill(out);
    expect(await panel.locator('.export-problem').count()).toBe(0);
    await panel.locator('select[name=exportDtype]').selectOption('BF16');
    expect(await panel.locator('input[name=exportMerged]').isChecked()).toBe(true);
    await saveScreenshot(page, shots.dir, 'checkpoints-export-model-panel');
    expect(await seriousViolations(page)).toEqual([]);
    await panel.locator('button.start-export').click();
    await page.locator('.message').waitFor({ timeout: 120_000 });
    expect(await page.locator('.message').innerText()).toBe(`exported iteration 1 as a Hugging Face model in BF16 (adapters merged) to ${out}`);
    expect(await panel.count()).toBe(0);
    for (const file of ['config.json', 'model.safetensors', 'tokenizer.json']) expect(existsSync(join(out, file))).toBe(true);
    expect((JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as { architectures: string[] }).architectures).toEqual(['Qwen2ForCausalLM']);
    await saveScreenshot(page, shots.dir, 'checkpoints-export-model-done');

    // The same folder again: the exporter's refusal shows in the panel.
    await row.locator('button.export-model').click();
    await panel.locator('input[name=exportOut]').fill(out);
    await panel.locator('button.start-export').click();
    await expect.poll(() => panel.locator('.export-problem').innerText(), { timeout: 60_000 }).toMatch(/not empty/);
  });

  it('offers no Hugging Face export for a from-scratch run, and says why', async () => {
    await page.goto(serve.at('/runs/2/checkpoints'));
    await page.locator('.checkpoint-row').first().waitFor();
    await page.locator('.export-note').waitFor();
    expect(await page.locator('button.export-model').count()).toBe(0);
    // What was said about the other run's export does not follow to this one.
    expect(await page.locator('.message').count()).toBe(0);
    expect(await page.locator('.export-note').innerText()).toMatch(/from scratch, which has no Hugging Face form/);
    expect(await page.locator('.checkpoint-row button.save-checkpoint').first().innerText()).toBe('Download');
    await saveScreenshot(page, shots.dir, 'checkpoints-scratch-no-hf-export');
  });
});
