// A BF16 checkpoint loads at its size: with LoRA on wasm its frozen base stays 16-bit (the
// embedding, every linear layer, the tied LM head), and it scores and trains as the same folder
// widened to float32 does, within float32 rounding.
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { parseRunConfig } from '../../trainer-core/config';
import type { HfDecoder } from '../../trainer-core/model/hf/decoder';
import { asPolicy } from '../../trainer-core/model/hf/generate';
import { loadHfDecoder, openHfModelFolder, type HfModelFolder } from '../../trainer-core/model/hf/load';
import { resolveTargetModules } from '../../trainer-core/model/hf/lora';
import { scoreTokens } from '../../trainer-core/model/scoring';
import { openPretrainedModels } from '../../trainer-core/train/pretrained-models';
import { Rng } from '../../trainer-core/rng';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { relativeError } from '../helpers/compare';
import { makeTempDir, type TempDir } from '../helpers/fixtures';

let temp: TempDir;
let folder: HfModelFolder;
let ids: number[];
const lora = { rank: 4, alpha: 8, targetModules: resolveTargetModules('all-linear') };

beforeAll(async () => {
  await selectBackend('wasm');
  temp = makeTempDir('turnlab-half-');
  folder = await openHfModelFolder(await writeRandomHfModel(join(temp.dir, 'tiny-qwen2'), PRESETS['tiny-qwen2'], { seed: 5, dtype: 'BF16' }));
  ids = folder.tokenizer.encode('<|im_start|>user\nPush the box onto the target.<|im_end|>\n<|im_start|>assistant\n<answer>Up || Left</answer>');
});
afterAll(() => temp.cleanup());

/** The same random adapters (B too, so they change the output) in both models. */
async function setAdapters(models: HfDecoder[], seed: number): Promise<void> {
  const rng = new Rng(seed);
  const arrays = await models[0].trainableArrays();
  for (const entry of Object.values(arrays)) for (let i = 0; i < entry.data.length; i++) entry.data[i] = rng.normal() * 0.2;
  for (const model of models) model.loadTrainable(arrays, 'test');
}

const scored = () => [ids.map((_, t) => (t >= ids.length / 2 ? 1 : 0))];

function scores(model: HfDecoder): { logprobs: number[]; entropy: number[] } {
  return tf.tidy(() => {
    const out = scoreTokens(asPolicy(model), [ids], { logprobs: true, entropy: true, scored: scored() });
    return { logprobs: Array.from(out.logprobs!.dataSync()), entropy: Array.from(out.entropy!.dataSync()) };
  });
}

/** Adapter gradients of a weighted sum of scored logprobs, recomputing each layer (checkpointing). */
function gradients(model: HfDecoder): Record<string, Float32Array> {
  const weights = tf.tensor2d([ids.map((_, t) => Math.sin(t))]);
  const loss = () => scoreTokens(asPolicy(model), [ids], { logprobs: true, scored: scored(), checkpointLayers: true }).logprobs!.mul(weights).sum() as tf.Scalar;
  const { value, grads } = tf.variableGrads(loss, model.variables());
  const named = model.nameGradients(grads);
  const out = Object.fromEntries(Object.entries(named).map(([name, g]) => [name, g.dataSync() as Float32Array]));
  tf.dispose([value, weights, ...Object.values(grads)]);
  return out;
}

describe('a BF16 folder with LoRA on wasm', () => {
  it('keeps its base 16-bit, and scores and trains as the float32-widened model does within 1e-5', async () => {
    const before = tf.memory().numBytes;
    const half = await loadHfDecoder(folder, { lora, seed: 1 });
    const halfBytes = tf.memory().numBytes - before;
    const wide = await loadHfDecoder(folder, { lora, seed: 1, dtype: 'float32' });
    const wideBytes = tf.memory().numBytes - before - halfBytes;
    // Two layers of seven linear layers, and the embedding that is also the tied LM head.
    expect(half.halfMatrices).toBe(2 * 7 + 1);
    expect(wide.halfMatrices).toBe(0);
    expect(half.parameterSummary()).toMatch(/15 base matrices 16-bit/);
    // The matrices are nearly all of the weights: the model holds a little over half the bytes.
    expect(halfBytes / wideBytes).toBeGreaterThan(0.5);
    expect(halfBytes / wideBytes).toBeLessThan(0.51);
    expect(half.weightBytes()).toBe(halfBytes);

    await setAdapters([half, wide], 2);
    const [h, w] = [scores(half), scores(wide)];
    expect(relativeError(h.logprobs, w.logprobs)).toBeLessThan(1e-5);
    expect(relativeError(h.entropy, w.entropy)).toBeLessThan(1e-5);
    const [gh, gw] = [gradients(half), gradients(wide)];
    expect(Object.keys(gh).sort()).toEqual(Object.keys(gw).sort());
    for (const name of Object.keys(gw)) expect(relativeError(gh[name], gw[name]), name).toBeLessThan(1e-5);
    // The base reads back as the file holds it.
    const [baseHalf, baseWide] = [await half.baseTensors(), await wide.baseTensors()];
    for (const name of Object.keys(baseWide)) {
      const [a, b] = [baseHalf[name].data, baseWide[name].data];
      expect(a.length, name).toBe(b.length);
      expect(a.findIndex((value, i) => !Object.is(value, b[i])), name).toBe(-1);
    }
    half.dispose();
    wide.dispose();
  });

  it('follows actor_rollout_ref.model.dtype in a run', async () => {
    for (const dtype of ['auto', 'float32'] as const) {
      const cfg = parseRunConfig({ actor_rollout_ref: { model: { path: folder.dir, lora_rank: 4, dtype } } }, 'test');
      const models = await openPretrainedModels(cfg, { critic: false, reference: true });
      expect(models.policy.halfMatrices).toBe(dtype === 'auto' ? 15 : 0);
      models.dispose();
    }
    expect(() => parseRunConfig({ actor_rollout_ref: { model: { dtype: 'bfloat16' } } }, 'test')).toThrow(/dtype/);
  });
});
