import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./fixtures/fused-kernels-child.ts', import.meta.url));

interface Comparison {
  forward: number;
  grads: number;
  dispatches: { fused: number; reference: number };
}

describe('fused WebGPU kernels against the tfjs reference (software Vulkan in CI)', () => {
  it('Adam, LayerNorm, the gradient norm, training attention, a whole transformer gradient, RMSNorm, rotary, SwiGLU, decode and prefill attention, the decoding linear layer and the LM head\'s scoring statistics match within 1e-5, forward and gradients, in fewer dispatches', async ({ skip }) => {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', child], { timeout: 240_000 });
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { ok: boolean; unavailable?: boolean; error?: string; registered: string[]; results: Record<string, Comparison> };
    if (result.unavailable) {
      if (process.env.CI === 'true') throw new Error(`WebGPU backend did not start in CI: ${result.error}`);
      skip(`WebGPU unavailable on this machine: ${result.error}`);
    }
    expect(result.error).toBeUndefined();
    // A shader Dawn rejects is skipped silently and its output left as it was.
    expect(`${stdout}${stderr}`).not.toMatch(/Invalid (ComputePipeline|BindGroup|CommandBuffer|ShaderModule)/);
    expect(result.registered.sort()).toEqual(['adam', 'decodeAttention', 'decoding', 'headScores', 'layerNorm', 'linear', 'rmsNorm', 'rotate', 'sumOfSquares', 'swiglu', 'trainingAttention', 'transposedProducts']);
    expect(Object.keys(result.results).sort()).toEqual(['adam', 'decodeAttention', 'decodeAttentionFrozen', 'decodeAttentionWide', 'headScores', 'layerNorm', 'linear', 'loraLinear', 'prefillAttention', 'rmsNorm', 'rmsNorm4d', 'rotary', 'sumOfSquares', 'swiglu', 'trainingAttention', 'transformerTraining']);
    for (const [name, c] of Object.entries(result.results)) {
      expect(c.forward, `${name} forward`).toBeLessThan(1e-5);
      expect(c.grads, `${name} gradients`).toBeLessThan(1e-5);
      // Fewer dispatches is how we know the fused path ran at all.
      expect(c.dispatches.fused, `${name} dispatches`).toBeLessThan(c.dispatches.reference);
    }
  }, 300_000);
});
