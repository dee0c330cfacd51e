import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import type { CrossBackendResult, IterationResult } from './fixtures/cross-backend';

/**
 * Two PPO iterations (GAE, actor and critic) of a tiny bandit model through the real `train()` on
 * wasm, cpu and webgpu, compared against cpu.
 *
 * Why the comparison is sound: a rollout samples tokens, and a logit that differs in its last bit
 * could in principle flip a token and change the whole batch. The model starts from the same
 * seeded weights on every backend and there is no warm start, so the first rollout's forward
 * passes agree to float32 rounding (measured: episode logprob sums within 4e-8) and the same
 * seeded draws pick the same tokens; the test asserts that (identical replies) before comparing
 * iteration 1's losses. Iteration 2 samples after one actor and one critic update per
 * mini-batch, where Adam's first steps (about lr times the gradient's sign) amplify rounding
 * differences: its losses are compared when its rollout also came out identical (it does on the
 * backends measured), and skipped with a note otherwise, because then the batches differ.
 *
 * Tolerances (absolute), against the worst difference measured from cpu in brackets: pg_loss
 * 2e-4 [webgpu 7e-5 at iteration 2, 2e-6 at iteration 1; wasm 1e-7; advantages are whitened to
 * unit scale], entropy 1e-4 [4e-6, on ~5.6], vf_loss 1e-4 [3e-10, on ~1e-3], an episode's summed
 * logprob 2e-2 [webgpu 5e-3 after updates, 6e-8 before]. WebGPU drifts more than wasm once Adam
 * has stepped; a wrong kernel (a zeroed gradient, a broken mask) moves the entropy and the
 * logprobs by far more than these bounds.
 */
const TOLERANCE: Record<string, number> = { 'actor/pg_loss': 2e-4, 'actor/entropy': 1e-4, 'critic/vf_loss': 1e-4 };
const LOGPROB_SUM_TOLERANCE = 2e-2;
/**
 * Gradient norms (before clipping), relative: WebGPU's global norm once read 0 on every device
 * because one AddN bound more storage buffers than a shader may, which silently turned
 * clipping off; a kernel that is wrong moves a norm by far more than 1e-3 of itself.
 */
const GRAD_NORM_RELATIVE_TOLERANCE = 1e-3;
const GRAD_NORMS = ['actor/grad_norm', 'critic/grad_norm'];
const BACKENDS = ['cpu', 'wasm', 'webgpu'] as const;

const run = promisify(execFile);
const child = fileURLToPath(new URL('./fixtures/train-child.ts', import.meta.url));

async function trainInChild(backend: string, pretrained?: string): Promise<CrossBackendResult> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', child, backend, ...(pretrained ? [pretrained] : [])], { timeout: 170_000 });
  const line = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as CrossBackendResult;
}

function expectSameLosses(backend: string, reference: IterationResult, other: IterationResult): void {
  for (const [metric, tolerance] of Object.entries(TOLERANCE)) {
    const a = reference.metrics[metric];
    const b = other.metrics[metric];
    expect(Number.isFinite(a), `${metric} on cpu`).toBe(true);
    expect(Math.abs(a - b), `${metric} at iteration ${other.iteration}: cpu ${a}, ${backend} ${b}`).toBeLessThanOrEqual(tolerance);
  }
  for (const metric of GRAD_NORMS) {
    const a = reference.metrics[metric];
    const b = other.metrics[metric];
    expect(a, `${metric} on cpu`).toBeGreaterThan(0);
    expect(Math.abs(a - b) / a, `${metric} at iteration ${other.iteration}: cpu ${a}, ${backend} ${b}`).toBeLessThanOrEqual(GRAD_NORM_RELATIVE_TOLERANCE);
  }
  reference.rollout.logprobSums.forEach((sum, i) =>
    expect(Math.abs(sum - other.rollout.logprobSums[i]), `episode ${i} logprob sum at iteration ${other.iteration}`).toBeLessThanOrEqual(LOGPROB_SUM_TOLERANCE),
  );
}

describe('two training iterations agree across backends', () => {
  const results = new Map<string, CrossBackendResult>();

  beforeAll(async () => {
    // Side by side: each backend in its own process (a live Dawn device keeps a process alive).
    const all = await Promise.all(BACKENDS.map((backend) => trainInChild(backend)));
    BACKENDS.forEach((backend, i) => results.set(backend, all[i]));
  }, 180_000);

  it('trains on cpu, the reference', () => {
    const cpu = results.get('cpu')!;
    if (!cpu.ok) throw new Error(`cpu training failed: ${cpu.error}`);
    expect(cpu.iterations.map((it) => it.iteration)).toEqual([1, 2]);
    for (const it of cpu.iterations) for (const metric of Object.keys(TOLERANCE)) expect(it.metrics).toHaveProperty(metric);
  });

  for (const backend of ['wasm', 'webgpu'] as const) {
    it(`${backend} matches cpu (software Vulkan for webgpu in CI)`, ({ skip }) => {
      const cpu = results.get('cpu')!;
      const other = results.get(backend)!;
      if (!cpu.ok) throw new Error(`cpu training failed: ${cpu.error}`);
      if (!other.ok) {
        // CI installs the software Vulkan driver (scripts/install-system-deps.sh): there webgpu must run.
        // Elsewhere only a missing adapter skips; a backend that starts and then fails is a bug.
        const noAdapter = /Backend "webgpu" cannot start/.test(other.error);
        if (backend === 'wasm' || process.env.CI === 'true' || !noAdapter) throw new Error(`${backend} training failed: ${other.error}`);
        skip(`WebGPU unavailable on this machine: ${other.error}`);
        return;
      }
      expect(other.backend).toBe(backend);
      const [first, second] = other.iterations;
      expect(first.rollout.replies).toEqual(cpu.iterations[0].rollout.replies);
      expectSameLosses(backend, cpu.iterations[0], first);
      if (second.rollout.replies.join('\n') === cpu.iterations[1].rollout.replies.join('\n')) {
        expectSameLosses(backend, cpu.iterations[1], second);
      } else {
        console.warn(`${backend}: iteration 2 sampled different tokens than cpu after the first updates; its losses are not compared`);
      }
    });
  }
});

describe('a small Qwen2 folder with LoRA trains on webgpu', () => {
  // The fused WebGPU kernels' gradients inside the trainer's scopes: a rotary gradient that read
  // angles freed by the forward pass's scope failed here (checkpointing is on by default for a
  // pretrained model) while the kernel tests, outside those scopes, passed. The kernels' values
  // and gradients are compared with tfjs's in tests/backend/webgpu-fused-kernels.test.ts, the
  // decoder's logprobs with a float64 reference in tests/backend/hf-webgpu.test.ts; replies are
  // not compared with another backend here, because this random model's near-uniform
  // distributions let a last-bit difference pick another token. Over 4,096 ids, not Qwen's
  // 151,936: the head is not what this checks (tests/backend/webgpu-half-weights runs the full one
  // on WebGPU), and on llvmpipe it was two thirds of the child's CPU.
  let temp: TempDir;
  let result: CrossBackendResult;
  beforeAll(async () => {
    temp = makeTempDir('turnlab-backends-hf-');
    result = await trainInChild('webgpu', await writeRandomHfModel(join(temp.dir, 'tiny-qwen2'), PRESETS['small-qwen2'], { seed: 1 }));
  }, 180_000);
  afterAll(() => temp?.cleanup());

  it('two iterations with LoRA and gradient checkpointing (software Vulkan in CI)', ({ skip }) => {
    if (!result.ok) {
      if (process.env.CI === 'true' || !/Backend "webgpu" cannot start/.test(result.error)) throw new Error(`webgpu training failed: ${result.error}`);
      skip(`WebGPU unavailable on this machine: ${result.error}`);
      return;
    }
    expect(result.backend).toBe('webgpu');
    expect(result.iterations.map((it) => it.iteration)).toEqual([1, 2]);
    for (const it of result.iterations) {
      for (const metric of ['actor/pg_loss', 'actor/entropy']) expect(Number.isFinite(it.metrics[metric]), `${metric} at ${it.iteration}`).toBe(true);
      expect(it.metrics['actor/grad_norm'], `actor/grad_norm at ${it.iteration}`).toBeGreaterThan(0);
      expect(it.metrics['actor/entropy']).toBeGreaterThan(0);
      for (const sum of it.rollout.logprobSums) expect(sum).toBeLessThan(0);
    }
  });
});
