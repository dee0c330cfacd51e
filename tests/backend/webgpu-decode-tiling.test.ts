// The decoding linear kernel's default tilings (one per layer kind and row band, the H200 sweep's
// winners at 64 rows) on software Vulkan against a float64 reference on the CPU, on shapes no
// tile divides, each layer as the decoder runs it (the RMSNorm folded into q|k|v, gate/up and
// the head). The kernel's other forms and the dispatches of whole decoding steps are
// webgpu-decoding's and webgpu-recorded-decoding's. The child's 480 s: with Mesa's shader cache empty it compiles every
// pipeline first (beside two training runs, 2026-11-29: 213 CPU s, 91 since the redundant ones
// were cut; docs/test-suite-time.md).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./fixtures/decode-tiling-child.ts', import.meta.url));

interface Check {
  kind: string;
  layer: string;
  norm: boolean;
  tiling: string;
  rows: number;
  inner: number;
  diff: number;
  dispatches: number;
}

describe('decoding kernel tilings (software Vulkan in CI)', () => {
  it("computes every default tiling of Qwen2.5-0.5B's layers within 1e-5 of a float64 reference, as the decoder runs it (the RMSNorm folded in), in one dispatch", async ({ skip }) => {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', child], { timeout: 480_000 });
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { ok: boolean; unavailable?: boolean; error?: string; results: { checks: Check[] } };
    if (result.unavailable) {
      if (process.env.CI === 'true') throw new Error(`WebGPU backend did not start in CI: ${result.error}`);
      skip(`WebGPU unavailable on this machine: ${result.error}`);
    }
    expect(result.error).toBeUndefined();
    expect(`${stdout}${stderr}`).not.toMatch(/Invalid (ComputePipeline|BindGroup|CommandBuffer|ShaderModule)|error while parsing WGSL/i);
    const { checks } = result.results;
    // The 64-row winners are among the tilings checked.
    const tilings = new Set(checks.map((c) => c.tiling));
    for (const winner of ['tm=4,rt=4,ct=2,ks=8,bk=64,th=256', 'tm=4,rt=4,ct=6,ks=8,bk=64,th=256', 'tm=4,rt=1,ct=30,ks=2,bk=64,th=64', 'tm=4,rt=1,ct=6,ks=32,bk=128,th=256'])
      expect([...tilings].some((t) => t.startsWith(winner)), winner).toBe(true);
    for (const c of checks) {
      const label = `${c.kind} ${c.tiling} at ${c.rows} rows x ${c.inner} inputs`;
      expect(c.diff, label).toBeLessThan(1e-5);
      expect(c.dispatches, label).toBe(1);
    }
    // Each layer kind's distinct tilings at 1, 16, 64 and 128 rows, each at 5 and 70 rows, the
    // RMSNorm folded into q|k|v, gate/up and the head as the decoder folds it.
    const tilingsOf = (layer: string) => [...new Set(checks.filter((c) => c.layer === layer).map((c) => c.tiling))];
    expect(Object.fromEntries(['qkv', 'o', 'gated', 'down', 'head'].map((l) => [l, tilingsOf(l).length]))).toEqual({ qkv: 3, o: 4, gated: 4, down: 4, head: 2 });
    for (const layer of ['qkv', 'o', 'gated', 'down', 'head']) expect(checks.filter((c) => c.layer === layer).map((c) => `${c.tiling} at ${c.rows}`), layer).toEqual(tilingsOf(layer).flatMap((t) => [`${t} at 5`, `${t} at 70`]));
    for (const c of checks) expect(c.norm, c.kind).toBe(['qkv', 'gated', 'head'].includes(c.layer));
  }, 540_000);
});
