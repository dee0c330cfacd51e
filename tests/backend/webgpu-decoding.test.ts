// Decoding on the device (hf/decode-session.ts): each kernel against the tfjs reference on
// software Vulkan, and the counts of a whole decoding step. The children's 480 s: with Mesa's
// shader cache empty the first child compiles every pipeline (100 s on a quiet 2-core machine
// before the redundant ones were cut, past 240 s on a busy one; docs/test-suite-time.md).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./fixtures/decoding-kernels-child.ts', import.meta.url));

interface Comparison {
  forward: number;
  dispatches: { fused: number; reference: number };
}

describe('decoding on the device (software Vulkan in CI)', () => {
  it('matches the tfjs reference within 1e-5 in 6 dispatches per layer + 3 per step at 3 and 20 rows (the RMSNorms folded in), samples top-k / top-p as the CPU keeps, one readback, no pipeline compiled again', async ({ skip }) => {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', child], { timeout: 480_000 });
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { ok: boolean; unavailable?: boolean; error?: string; results: Record<string, unknown> };
    if (result.unavailable) {
      if (process.env.CI === 'true') throw new Error(`WebGPU backend did not start in CI: ${result.error}`);
      skip(`WebGPU unavailable on this machine: ${result.error}`);
    }
    expect(result.error).toBeUndefined();
    expect(`${stdout}${stderr}`).not.toMatch(/Invalid (ComputePipeline|BindGroup|CommandBuffer|ShaderModule)|error while parsing WGSL/i);
    const { sample, truncated, decodingStep, ...kernels } = result.results as Record<string, Comparison> & {
      sample: { checked: number; mismatches: number; logprobDiff: number };
      truncated: { checked: number; mismatches: number; logprobDiff: number };
      decodingStep: { perLayer: number; fixed: number; readbacks: number; pipelines: number; sameTokens: boolean; logprobDiff: number; leaked: number; transformerStep: number; widePerLayer: number; wideFixed: number };
    };
    expect(Object.keys(kernels).sort()).toEqual(['cachedAttention', 'embed', 'embedRows', 'layerNorm', 'linearGated', 'linearQkv', 'linearRelu', 'linearResidual', 'linearTransposed']);
    for (const [name, c] of Object.entries(kernels)) {
      expect(c.forward, name).toBeLessThan(1e-5);
      expect(c.dispatches.fused, `${name} dispatches`).toBeLessThan(c.dispatches.reference);
    }
    // The KV cache write and the attention: two dispatches for the step, whatever its length.
    expect(kernels.cachedAttention.dispatches.fused).toBe(2);
    expect(sample.checked).toBeGreaterThan(40);
    expect(sample.mismatches).toBe(0);
    expect(sample.logprobDiff).toBeLessThan(1e-5);
    // Top-k / top-p on the device: the CPU sampler's kept tokens, the same draw inverted in id order.
    expect(truncated.checked).toBeGreaterThan(25);
    expect(truncated.mismatches).toBe(0);
    expect(truncated.logprobDiff).toBeLessThan(1e-5);
    expect(decodingStep).toMatchObject({ perLayer: 6, fixed: 3, readbacks: 1, pipelines: 0, sameTokens: true, leaked: 0, transformerStep: 20 });
    // 20 rows (blocks of rows, the tilings of 64 rows): still one kernel per linear layer, the
    // RMSNorms folded in. 1 row: webgpu-recorded-decoding's count.
    expect({ perLayer: decodingStep.widePerLayer, fixed: decodingStep.wideFixed }).toEqual({ perLayer: 6, fixed: 3 });
    // Logits of order 10 (weights far from their init) in float32: a few 1e-6 apart.
    expect(decodingStep.logprobDiff).toBeLessThan(5e-5);
  }, 540_000);

  it('decodes the same tokens with the LM head through tfjs matmul (TURNLAB_DECODE_HEAD_MATMUL_FROM_ROWS), one dispatch more a step', async ({ skip }) => {
    const env = { ...process.env, TURNLAB_DECODE_HEAD_MATMUL_FROM_ROWS: '1' };
    const { stdout } = await run(process.execPath, ['--import', 'tsx', child, '--decoding-only'], { timeout: 480_000, env });
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { unavailable?: boolean; error?: string; results: { decodingStep: Record<string, unknown> } };
    if (result.unavailable) {
      if (process.env.CI === 'true') throw new Error(`WebGPU backend did not start in CI: ${result.error}`);
      skip(`WebGPU unavailable on this machine: ${result.error}`);
    }
    expect(result.error).toBeUndefined();
    // The final RMSNorm is no longer folded into the head's product: 3 + 1 a step.
    expect(result.results.decodingStep).toMatchObject({ perLayer: 6, fixed: 4, readbacks: 1, pipelines: 0, sameTokens: true, leaked: 0 });
    expect(result.results.decodingStep.logprobDiff).toBeLessThan(5e-5);
  }, 540_000);
});
