// LoRA on a pretrained decoder: gradients, the adapters-off reference, PEFT adapter files, and
// the merged Hugging Face export.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import type { HfDecoder } from '../../trainer-core/model/hf/decoder';
import { exportHfFolder } from '../../trainer-core/model/hf/export';
import { asPolicy } from '../../trainer-core/model/hf/generate';
import { loadHfDecoder, openHfModelFolder, type HfModelFolder } from '../../trainer-core/model/hf/load';
import { resolveTargetModules } from '../../trainer-core/model/hf/lora';
import { readPeftAdapter, savePeftAdapter } from '../../trainer-core/model/hf/peft';
import { readHfSafetensors } from '../../trainer-core/model/hf/weights';
import { scoreTokens } from '../../trainer-core/model/scoring';
import { Rng } from '../../trainer-core/rng';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { makeTempDir, type TempDir } from '../helpers/fixtures';

const reference = fileURLToPath(new URL('../helpers/hf_reference.py', import.meta.url));
const lora = { rank: 4, alpha: 8, targetModules: resolveTargetModules('all-linear') };
let temp: TempDir;
let folder: HfModelFolder;
let ids: number[];

beforeAll(async () => {
  await selectBackend('wasm');
  temp = makeTempDir('turnlab-lora-');
  folder = await openHfModelFolder(await writeRandomHfModel(join(temp.dir, 'base'), PRESETS['tiny-qwen2'], { seed: 4 }));
  ids = folder.tokenizer.encode('<|im_start|>user\nGo left or right?<|im_end|>\n<|im_start|>assistant\nRight');
});
afterAll(() => temp.cleanup());

/** Gives every adapter random values (B too: a fresh B is zero and would hide A's gradient). */
async function randomiseAdapters(model: HfDecoder, seed: number): Promise<void> {
  const rng = new Rng(seed);
  const arrays = await model.trainableArrays();
  for (const entry of Object.values(arrays)) for (let i = 0; i < entry.data.length; i++) entry.data[i] = rng.normal() * 0.3;
  model.loadTrainable(arrays, 'test');
}

function logprobs(model: Parameters<typeof asPolicy>[0], row = ids): number[] {
  return tf.tidy(() => scoreTokens(asPolicy(model), [row]).logprobs!.arraySync()[0].slice(1));
}

function maxDiff(a: number[], b: number[]): number {
  return Math.max(...a.map((v, i) => Math.abs(v - b[i])));
}

describe('LoRA on a Qwen2 folder', () => {
  it('starts as the base model, and with adapters switched off stays the base model', async () => {
    const base = await loadHfDecoder(folder);
    const adapted = await loadHfDecoder(folder, { lora, seed: 1 });
    expect(adapted.variables().map((v) => v.shape)).toHaveLength(2 * 7 * 2);
    expect(adapted.trainableParameterCount()).toBeLessThan(base.parameterCount() / 50);
    // The adapted model keeps the BF16 base 16-bit (its own products, summed in their own order):
    // equal to the float32 base within float32 rounding, and exactly to itself without adapters.
    expect(maxDiff(logprobs(adapted), logprobs(base))).toBeLessThan(1e-5);
    const baseLogprobs = logprobs(adapted.withoutAdapters());
    expect(maxDiff(logprobs(adapted), baseLogprobs)).toBe(0);
    await randomiseAdapters(adapted, 2);
    expect(maxDiff(logprobs(adapted), baseLogprobs)).toBeGreaterThan(0.1);
    expect(maxDiff(logprobs(adapted.withoutAdapters()), baseLogprobs)).toBe(0);
    base.dispose();
    adapted.dispose();
  });

  it('has adapter gradients that match finite differences', async () => {
    const model = await loadHfDecoder(folder, { lora, seed: 1 });
    await randomiseAdapters(model, 3);
    const weights = ids.slice(1).map((_, i) => Math.cos(i));
    const loss = () => tf.tidy(() => scoreTokens(asPolicy(model), [ids]).logprobs!.slice([0, 1], [1, ids.length - 1]).mul(tf.tensor2d([weights])).sum() as tf.Scalar);
    const { grads } = tf.variableGrads(loss, model.variables());
    const named = model.nameGradients(grads);
    const rng = new Rng(7);
    const checked: Array<[number, number]> = [];
    for (const name of ['model.layers.0.self_attn.q_proj.lora_A', 'model.layers.1.self_attn.v_proj.lora_B', 'model.layers.0.mlp.down_proj.lora_A', 'model.layers.1.mlp.gate_proj.lora_B']) {
      const variable = model.parameter(name);
      const gradient = (await named[name].data()) as Float32Array;
      for (let k = 0; k < 2; k++) {
        const index = rng.int(variable.size);
        const original = (await variable.data()) as Float32Array;
        const eps = 3e-2;
        const at = (delta: number) => {
          const changed = original.slice();
          changed[index] += delta;
          variable.assign(tf.tensor(changed, variable.shape));
          const value = loss();
          const out = value.dataSync()[0];
          value.dispose();
          return out;
        };
        const numeric = (at(eps) - at(-eps)) / (2 * eps);
        variable.assign(tf.tensor(original, variable.shape));
        checked.push([gradient[index], numeric]);
      }
    }
    tf.dispose(Object.values(grads));
    for (const [analytic, numeric] of checked) expect(Math.abs(analytic - numeric)).toBeLessThan(1e-2 * Math.max(1, Math.abs(numeric)));
    expect(Math.max(...checked.map(([a]) => Math.abs(a)))).toBeGreaterThan(0.1);
    model.dispose();
  });

  it('saves adapters in PEFT layout that load back to the same logprobs', async () => {
    const model = await loadHfDecoder(folder, { lora, seed: 1 });
    await randomiseAdapters(model, 4);
    const dir = join(temp.dir, 'adapter');
    await savePeftAdapter(dir, model, folder.dir);
    const file = await readHfSafetensors(join(dir, 'adapter_model.safetensors'));
    expect(file['base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight'].shape).toEqual([4, 64]);
    expect(file['base_model.model.model.layers.1.mlp.down_proj.lora_B.weight'].shape).toEqual([64, 4]);
    const adapter = await readPeftAdapter(dir);
    expect(adapter.lora).toEqual({ ...lora, useRslora: false });
    const loaded = await loadHfDecoder(folder, { lora: adapter.lora, seed: 99 });
    loaded.loadTrainable(adapter.arrays, dir);
    expect(maxDiff(logprobs(loaded), logprobs(model))).toBe(0);
    model.dispose();
    loaded.dispose();
  });

  it('exports a merged folder whose plain weights equal base plus adapter', async () => {
    const model = await loadHfDecoder(folder, { lora, seed: 1 });
    await randomiseAdapters(model, 5);
    const out = join(temp.dir, 'merged');
    await exportHfFolder(folder, model, out, { merged: true });
    const exported = await openHfModelFolder(out);
    expect(exported.tokenizer.encode('Hello world')).toEqual([9707, 1879]);
    const merged = await loadHfDecoder(exported);
    const expected = logprobs(model);
    expect(maxDiff(logprobs(merged), expected)).toBeLessThan(1e-3);
    let numpy = true;
    try {
      execFileSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' });
    } catch {
      numpy = false;
      console.log('hf-lora: no numpy, skipping the independent check of the merged folder');
    }
    if (numpy) {
      const theirs = JSON.parse(execFileSync('python3', [reference, out, JSON.stringify([ids])], { encoding: 'utf8' }))[0] as number[];
      expect(maxDiff(expected, theirs)).toBeLessThan(1e-3);
    }
    model.dispose();
    merged.dispose();
  });
});
