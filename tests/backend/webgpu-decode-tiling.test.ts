// The decoding linear kernel's default tilings (one per layer kind and row band, the H200 sweep's
// winners at 64 rows) against a tfjs reference on software Vulkan, on shapes no tile divides,
// with the RMSNorm before q|k|v, gate/up and the head folded in, and 1- and 64-row decoding steps
// at 6 dispatches per layer + 3. The child's 480 s: with Mesa's shader cache empty it compiles
// every pipeline first (125 s on a quiet 2-core machine, past 240 s on a busy one).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./fixtures/decode-tiling-child.ts', import.meta.url));

interface Check {
  kind: string;
  tiling: string;
  rows: number;
  inner: number;
  diff: number;
  dispatches: number;
}

describe('decoding kernel tilings (software Vulkan in CI)', () => {
  it("computes every default tiling of Qwen2.5-0.5B's layers within 1e-5 of tfjs, the RMSNorm folded in, one dispatch a layer, 6 per layer + 3 at 1 and 64 rows", async ({ skip }) => {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', child], { timeout: 480_000 });
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { ok: boolean; unavailable?: boolean; error?: string; results: { checks: Check[]; steps: Record<string, { perLayer: number; fixed: number }> } };
    if (result.unavailable) {
      if (process.env.CI === 'true') throw new Error(`WebGPU backend did not start in CI: ${result.error}`);
      skip(`WebGPU unavailable on this machine: ${result.error}`);
    }
    expect(result.error).toBeUndefined();
    expect(`${stdout}${stderr}`).not.toMatch(/Invalid (ComputePipeline|BindGroup|CommandBuffer|ShaderModule)|error while parsing WGSL/i);
    const { checks, steps } = result.results;
    // The 64-row winners are among the tilings checked.
    const tilings = new Set(checks.map((c) => c.tiling));
    for (const winner of ['tm=4,rt=4,ct=2,ks=8,bk=64,th=256', 'tm=4,rt=4,ct=6,ks=8,bk=64,th=256', 'tm=4,rt=1,ct=30,ks=2,bk=64,th=64', 'tm=4,rt=1,ct=6,ks=32,bk=128,th=256'])
      expect([...tilings].some((t) => t.startsWith(winner)), winner).toBe(true);
    expect(checks.length).toBeGreaterThan(30);
    for (const c of checks) {
      const label = `${c.kind} ${c.tiling} at ${c.rows} rows x ${c.inner} inputs`;
      expect(c.diff, label).toBeLessThan(1e-5);
      expect(c.dispatches, label).toBe(1);
    }
    // Each RMSNorm folded into the product after it.
    expect(checks.filter((c) => c.kind.includes('RMSNorm')).length).toBeGreaterThan(5);
    expect(steps).toEqual({ 1: { perLayer: 6, fixed: 3 }, 64: { perLayer: 6, fixed: 3 } });
  }, 540_000);
});
