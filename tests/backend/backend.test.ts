import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeBackendChoice, selectBackend } from '../../trainer-core/backend';
import { runSelfTest } from '../../trainer-core/model/selftest';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./fixtures/selftest-child.ts', import.meta.url));
/**
 * Losses of the same seeded steps agree across backends to float32 rounding (measured: within
 * 3e-7 on losses near 3). 1e-4 leaves room for different summation orders and Adam's first-step
 * sign sensitivity, while a wrong kernel (a zeroed embedding gradient, a broken mask) moves the
 * loss after two Adam steps by 1e-2 or more.
 */
const CROSS_BACKEND_TOLERANCE = 1e-4;

interface ChildResult {
  ok: boolean;
  error?: string;
  choice?: { name: string; device: string };
  result?: { losses: number[] };
}

async function selfTestInChild(backend: string): Promise<ChildResult> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', child, backend], { timeout: 120_000 });
  const line = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as ChildResult;
}

describe('selectBackend', () => {
  it('explains why the native tensorflow packages are not used', async () => {
    await expect(selectBackend('tensorflow')).rejects.toThrow(/tfjs-node-gpu not installed \(npm install @tensorflow\/tfjs-node-gpu to use the GPU\)/);
  });

  it('auto picks a working backend and logs one line with the reasons for the ones it skipped', async () => {
    const lines: string[] = [];
    const choice = await selectBackend('auto', (line) => lines.push(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(describeBackendChoice(choice));
    expect(lines[0]).toMatch(/^backend: \w+ on .+; not used: tensorflow: /);
    expect(choice.reasons[0]).toMatch(/^tensorflow: /);
    expect(tf.getBackend()).toBe(choice.tfBackend);
  });

  it('selects wasm and cpu explicitly and rejects unknown names', async () => {
    expect((await selectBackend('wasm')).device).toMatch(/WebAssembly/);
    expect(tf.getBackend()).toBe('wasm');
    expect((await selectBackend('cpu')).name).toBe('cpu');
    await expect(selectBackend('cuda' as never)).rejects.toThrow(/Unknown backend "cuda": use one of auto, tensorflow, webgpu, wasm, cpu/);
  });
});

describe('one forward + backward + Adam step per backend', () => {
  let cpuLosses: number[];

  beforeAll(async () => {
    await selectBackend('cpu');
    cpuLosses = (await runSelfTest()).losses;
  });

  it('trains on cpu (the loss falls)', () => {
    expect(cpuLosses[1]).toBeLessThan(cpuLosses[0]);
    expect(cpuLosses[2]).toBeLessThan(cpuLosses[1]);
  });

  it(`wasm matches cpu within ${CROSS_BACKEND_TOLERANCE}`, async () => {
    await selectBackend('wasm');
    const wasm = await runSelfTest();
    wasm.losses.forEach((loss, i) => expect(Math.abs(loss - cpuLosses[i])).toBeLessThan(CROSS_BACKEND_TOLERANCE));
  });

  it(`webgpu matches cpu within ${CROSS_BACKEND_TOLERANCE} (software Vulkan in CI)`, async ({ skip }) => {
    const webgpu = await selfTestInChild('webgpu');
    if (!webgpu.ok) {
      // CI installs the software Vulkan driver (scripts/install-system-deps.sh): there this must fail.
      if (process.env.CI === 'true') throw new Error(`WebGPU backend did not start in CI: ${webgpu.error}`);
      skip(`WebGPU unavailable on this machine: ${webgpu.error}`);
    }
    expect(webgpu.choice?.name).toBe('webgpu');
    webgpu.result!.losses.forEach((loss, i) => expect(Math.abs(loss - cpuLosses[i])).toBeLessThan(CROSS_BACKEND_TOLERANCE));
  }, 180_000);
});
