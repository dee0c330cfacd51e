// A BF16 checkpoint loads at its size: with LoRA on wasm its frozen base stays 16-bit (the
// embedding, every linear layer, the tied LM head), and it scores and trains as the same folder
// widened to float32 does, within float32 rounding.
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { parseRunConfig } from '../../trainer-core/config';
import { loadHfDecoder, openHfModelFolder, type HfModelFolder } from '../../trainer-core/model/hf/load';
import { resolveTargetModules } from '../../trainer-core/model/hf/lora';
import { openPretrainedModels } from '../../trainer-core/train/pretrained-models';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { relativeError } from '../helpers/compare';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { halfModelScores, setAdapters } from '../helpers/half-model';

let temp: TempDir;
let folder: HfModelFolder;
let ids: number[];
const lora = { rank: 4, alpha: 8, targetModules: resolveTargetModules('all-linear') };

beforeAll(async () => {
  await selectBackend('wasm');
  temp = makeTempDir('turnlab-half-');
  folder = await openHfModelFolder(await writeRandomHfModel(join(temp.dir, 'tiny-qwen2'), PRESETS['small-qwen2'], { seed: 5, dtype: 'BF16' }));
  ids = folder.tokenizer.encode('<|im_start|>user\nPush the box onto the target.<|im_end|>\n<|im_start|>assistant\n<answer>Up || Left</answer>');
});
afterAll(() => temp.cleanup());

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
    expect(halfBytes / wideBytes).toBeLessThan(0.52);
    expect(half.weightBytes()).toBe(halfBytes);

    await setAdapters([half, wide], 2);
    const [h, w] = [await halfModelScores(half, ids), await halfModelScores(wide, ids)];
    expect(relativeError(h.logprobs, w.logprobs)).toBeLessThan(1e-5);
    expect(relativeError(h.entropy, w.entropy)).toBeLessThan(1e-5);
    expect(Object.keys(h.gradients).sort()).toEqual(Object.keys(w.gradients).sort());
    for (const name of Object.keys(w.gradients)) expect(relativeError(h.gradients[name], w.gradients[name]), name).toBeLessThan(1e-5);
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

  it('stays 16-bit for generation (frozen, nothing trains)', async () => {
    const model = await loadHfDecoder(folder, { frozen: true });
    expect(model.halfMatrices).toBe(15);
    expect(model.variables()).toEqual([]);
    model.dispose();
  });

  it('follows actor_rollout_ref.model.dtype in a run, and its LoRA critic reads the policy\'s base', async () => {
    for (const dtype of ['auto', 'float32'] as const) {
      const cfg = parseRunConfig({ actor_rollout_ref: { model: { path: folder.dir, lora_rank: 4, dtype } } }, 'test');
      const before = tf.memory().numBytes;
      const alone = await openPretrainedModels(cfg, { critic: false, reference: true });
      const policyBytes = tf.memory().numBytes - before;
      expect(alone.policy.halfMatrices).toBe(dtype === 'auto' ? 15 : 0);
      alone.dispose();
      const both = await openPretrainedModels(cfg, { critic: true, reference: true });
      // The critic adds its adapters and value head, not a second base.
      expect(tf.memory().numBytes - before).toBeLessThan(1.05 * policyBytes);
      expect(both.critic!.halfMatrices).toBe(dtype === 'auto' ? 15 : 0);
      both.dispose();
      expect(tf.memory().numBytes).toBe(before);
    }
    expect(() => parseRunConfig({ actor_rollout_ref: { model: { dtype: 'bfloat16' } } }, 'test')).toThrow(/dtype/);
  });
});
