// The pretrained decoders on WebGPU, where the fused kernels run: every position's logprob
// against the independent float64 implementation (tests/helpers/hf_reference.py, numpy), and
// KV-cache decoding (fused decode attention and linear layers) against full forward passes. Over
// 4,096 ids: the 151,936-wide head on WebGPU is webgpu-half-weights' (it decodes with it) and
// webgpu-decode-tiling's (its tilings), and here it was two thirds of the child's CPU.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyHfModels } from '../../scripts/hf-random-model';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { hasNumpy, NUMPY_NOTE, referenceLogprobs } from '../helpers/hf-reference';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const child = join(root, 'tests/backend/fixtures/hf-webgpu-child.ts');

interface Sampled {
  tokens: number[][];
  logprobs: number[][];
}
interface Family {
  ids: number[];
  logprobs: number[];
  cached: Sampled;
  uncached: Sampled;
  sampled: Sampled;
  rescored: number[][];
}

let temp: TempDir;
let folders: Record<string, string>;

beforeAll(async () => {
  temp = makeTempDir('turnlab-hf-webgpu-');
  folders = await writeTinyHfModels(temp.dir, 'small');
});
afterAll(() => temp.cleanup());

describe('the pretrained decoders on WebGPU with the fused kernels (software Vulkan in CI)', () => {
  it('match the float64 reference, and decoding on the device matches full forward passes', async ({ skip }) => {
    // Qwen2 (biases) and Qwen3 (qk-norm over heads): Llama adds no kernel path of its own.
    const used = { qwen2: folders.qwen2, qwen3: folders.qwen3 };
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', child, JSON.stringify(used)], { timeout: 240_000, maxBuffer: 1 << 24 });
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { ok: boolean; unavailable?: boolean; error?: string; families: Record<string, Family> };
    if (result.unavailable) {
      if (process.env.CI === 'true') throw new Error(`WebGPU backend did not start in CI: ${result.error}`);
      skip(`WebGPU unavailable on this machine: ${result.error}`);
    }
    expect(result.error).toBeUndefined();
    expect(`${stdout}${stderr}`).not.toMatch(/Invalid (ComputePipeline|BindGroup|CommandBuffer|ShaderModule)/);
    expect(Object.keys(result.families).sort()).toEqual(['qwen2', 'qwen3']);
    for (const [family, f] of Object.entries(result.families)) {
      expect(f.cached.tokens, family).toEqual(f.uncached.tokens);
      f.cached.logprobs.forEach((row, i) => row.forEach((lp, t) => expect(Math.abs(lp - f.uncached.logprobs[i][t]), `${family} row ${i} token ${t}`).toBeLessThan(1e-4)));
      expect(f.sampled.tokens.flat().length, family).toBe(8);
      f.sampled.logprobs.forEach((row, i) => row.forEach((lp, t) => expect(Math.abs(lp - f.rescored[i][t]), `${family} sampled row ${i} token ${t}`).toBeLessThan(1e-4)));
      if (!hasNumpy()) continue;
      const theirs = referenceLogprobs(folders[family], [f.ids])[0];
      expect(f.logprobs).toHaveLength(theirs.length);
      expect(Math.max(...f.logprobs.map((v, i) => Math.abs(v - theirs[i]))), family).toBeLessThan(1e-3);
      expect(Math.max(...theirs) - Math.min(...theirs)).toBeGreaterThan(5);
    }
    // Decoding was checked; the comparison with the float64 reference was not, and the run says so.
    if (!hasNumpy()) skip(NUMPY_NOTE);
  }, 300_000);
});
