// 16-bit weights on WebGPU (webgpu/half-products.ts): the products against tfjs's float32 matMul
// of the widened matrix, and a BF16 folder that loads at half its float32 bytes, decodes on the
// device as its float32 self does, and scores and trains as the wasm 16-bit path (in this
// process) does.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { loadHfDecoder, openHfModelFolder } from '../../trainer-core/model/hf/load';
import { resolveTargetModules } from '../../trainer-core/model/hf/lora';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { relativeError } from '../helpers/compare';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { halfModelScores, setAdapters, type HalfModelCase, type HalfModelScores } from '../helpers/half-model';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./fixtures/half-weights-child.ts', import.meta.url));

interface Result {
  ok: boolean;
  unavailable?: boolean;
  error?: string;
  products: Record<string, { forward: number; gradient: number; tape: number; dispatches: number; gradientDispatches: number }>;
  widening: { BF16: number[]; F16: number[] };
  model: { halfMatrices: number; wideMatrices: number; halfBytes: number; wideBytes: number; weightBytes: number; half: HalfModelScores; wide: HalfModelScores };
  decoding: { half: Sampled; wide: Sampled; stepDispatches: { half: number; wide: number } };
  leftBytes: number;
}

interface Sampled {
  tokens: number[][];
  logprobs: number[][];
}

let temp: TempDir;
let modelCase: HalfModelCase;
let wasm: HalfModelScores;

beforeAll(async () => {
  temp = makeTempDir('turnlab-webgpu-half-');
  const dir = await writeRandomHfModel(join(temp.dir, 'tiny-qwen2'), PRESETS['tiny-qwen2'], { seed: 5, dtype: 'BF16' });
  const folder = await openHfModelFolder(dir);
  const ids = folder.tokenizer.encode('<|im_start|>user\nPush the box onto the target.<|im_end|>\n<|im_start|>assistant\n<answer>Up || Left</answer>');
  modelCase = { dir, ids, lora: { rank: 4, alpha: 8, targetModules: resolveTargetModules('all-linear') }, adapterSeed: 2 };
  await selectBackend('wasm');
  const model = await loadHfDecoder(folder, { lora: modelCase.lora, seed: 1 });
  expect(model.halfMatrices).toBe(15);
  await setAdapters([model], modelCase.adapterSeed);
  wasm = await halfModelScores(model, ids);
  model.dispose();
  tf.disposeVariables();
});
afterAll(() => temp.cleanup());

describe('16-bit weights on WebGPU (software Vulkan in CI)', () => {
  it('products equal float32 within 1e-5; a BF16 folder holds half the bytes and scores and trains as wasm\'s 16-bit path', async ({ skip }) => {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', child, JSON.stringify(modelCase)], { timeout: 240_000, maxBuffer: 1 << 24 });
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '') as Result;
    if (result.unavailable) {
      if (process.env.CI === 'true') throw new Error(`WebGPU backend did not start in CI: ${result.error}`);
      skip(`WebGPU unavailable on this machine: ${result.error}`);
    }
    expect(result.error).toBeUndefined();
    expect(`${stdout}${stderr}`).not.toMatch(/Invalid (ComputePipeline|BindGroup|CommandBuffer|ShaderModule)/);
    expect(Object.keys(result.products)).toHaveLength(6);
    for (const [name, p] of Object.entries(result.products)) {
      expect(p.forward, `${name} forward`).toBeLessThan(1e-5);
      expect(p.gradient, `${name} input gradient`).toBeLessThan(1e-5);
      expect(p.tape, `${name} through the tape`).toBeLessThan(1e-5);
      expect(p.dispatches, `${name} dispatches`).toBe(1);
      // The few-rows gradient's pieces are added by one more dispatch where there are several.
      expect(p.gradientDispatches, `${name} gradient dispatches`).toBe(name.includes('x [520,') ? 2 : 1);
    }
    expect(result.widening).toEqual({ BF16: [], F16: [] });

    const m = result.model;
    expect(m.halfMatrices).toBe(15);
    expect(m.wideMatrices).toBe(0);
    expect(m.halfBytes).toBe(m.weightBytes);
    // The 16-bit matrices are nearly all of the weights: a little over half the float32 bytes.
    expect(m.halfBytes / m.wideBytes).toBeGreaterThan(0.5);
    expect(m.halfBytes / m.wideBytes).toBeLessThan(0.51);
    expect(result.leftBytes).toBe(0);
    // Decoding on the device reads the base widened for the rollout: the float32 model's weights
    // exactly, so its tokens, logprobs and dispatches per step.
    const d = result.decoding;
    expect(d.half.tokens.flat()).toHaveLength(6);
    expect(d.half.tokens).toEqual(d.wide.tokens);
    expect(d.half.logprobs).toEqual(d.wide.logprobs);
    expect(d.stepDispatches.half).toBe(d.stepDispatches.wide);
    expect(d.stepDispatches.wide).toBeLessThanOrEqual(8 * 2 + 4);
    // On the same backend the 16-bit model is the float32 one within float32 rounding.
    expect(relativeError(m.half.logprobs, m.wide.logprobs)).toBeLessThan(1e-5);
    expect(relativeError(m.half.entropy, m.wide.entropy)).toBeLessThan(1e-5);
    expect(Object.keys(m.half.gradients).sort()).toEqual(Object.keys(m.wide.gradients).sort());
    for (const key of Object.keys(m.wide.gradients)) expect(relativeError(m.half.gradients[key], m.wide.gradients[key]), key).toBeLessThan(1e-5);
    // Against wasm's 16-bit path it is as close as WebGPU's float32 model is (llvmpipe's exp and
    // log differ from wasm's: measured 1.1e-5 on logprobs, up to 1.5e-4 on adapter gradients).
    const wasmGap = (scores: HalfModelScores) => [
      relativeError(scores.logprobs, wasm.logprobs),
      relativeError(scores.entropy, wasm.entropy),
      ...Object.keys(wasm.gradients).map((key) => relativeError(scores.gradients[key], wasm.gradients[key])),
    ];
    const [halfGap, wideGap] = [wasmGap(m.half), wasmGap(m.wide)];
    expect(halfGap[0]).toBeLessThan(2e-5);
    halfGap.forEach((gap, i) => expect(gap, `wasm comparison ${i}`).toBeLessThan(Math.max(1.2 * wideGap[i], 1e-5)));
  }, 300_000);
});
