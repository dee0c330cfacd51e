/**
 * Where a model's GPU time goes, in counts that any backend can give (see gpu-counters.ts):
 * dispatches per decoding step and per training token, pipelines compiled while timing, readbacks
 * per step, and batched-sampling throughput at several row counts.
 */
import * as tf from '@tensorflow/tfjs';
import { countGpuWork, type GpuCounts } from '../../trainer-core/model/gpu-counters';
import type { LanguageModel } from '../../trainer-core/model/language-model';
import { sampleTokens } from '../../trainer-core/model/sampler';
import type { Rng } from '../../trainer-core/rng';

export const SAMPLING_ROWS = [1, 16, 64];

export interface DecodeCounts {
  /** Per decoding step (one new token for every row of the batch). */
  dispatchesPerStep: number;
  kernelsPerStep: number;
  readbacksPerStep: number;
  /** Of dispatchesPerStep, those a recorded step replayed itself (webgpu/step-recorder.ts), not through tfjs. */
  recordedPerStep: number;
  /** Compiled during a second, identical rollout: what every rollout after the first pays. */
  pipelinesCompiled: number;
}

/**
 * Counts of one decoding step, from two rollouts that differ only in their length (so the
 * prefill cancels out), each run after a warm-up of the same shape.
 */
export async function decodeCounts(model: LanguageModel, prompts: number[][], rng: Rng, steps = 4): Promise<DecodeCounts> {
  const run = async (maxNewTokens: number): Promise<GpuCounts> => {
    const options = { maxNewTokens, temperature: 1, stopIds: [], rng };
    await sampleTokens(model, prompts, options);
    return (await countGpuWork(() => sampleTokens(model, prompts, options))).counts;
  };
  const short = await run(2);
  const long = await run(2 + steps);
  return {
    dispatchesPerStep: (long.dispatches - short.dispatches) / steps,
    kernelsPerStep: (long.kernels - short.kernels) / steps,
    readbacksPerStep: (long.readbacks - short.readbacks) / steps,
    recordedPerStep: (long.recordedDispatches - short.recordedDispatches) / steps,
    pipelinesCompiled: long.pipelinesCompiled,
  };
}

/** Counts of one training step (forward, backward and `apply`), after a warm-up step. */
export async function trainingCounts(step: () => Promise<void>, tokens: number): Promise<GpuCounts & { dispatchesPerToken: number }> {
  await step();
  const { counts } = await countGpuWork(step);
  return { ...counts, dispatchesPerToken: counts.dispatches / tokens };
}

export interface SamplingTimes {
  /** Generated tokens per second of the whole rollout, its prompts' prefill included. */
  tokensPerSecond: number;
  seconds: number;
  /** A rollout of one new token: the prefill and the first token, the part decoding steps do not cover. */
  prefillSeconds: number;
  /**
   * Tokens per second of the decoding steps alone (the rollout less the one-token rollout); NaN
   * where the one-token rollout took as long as the whole one (steps too short to time apart).
   */
  decodingTokensPerSecond: number;
}

/**
 * Generated tokens per second for a rollout of `rows` rows, after a short warm-up of that shape,
 * with the prefill's share: a one-token rollout of the same prompts timed too.
 */
export async function samplingTimes(model: LanguageModel, rows: number, promptLength: number, newTokens: number, rng: Rng, draw: (rng: Rng) => number): Promise<SamplingTimes> {
  const prompts = Array.from({ length: rows }, () => Array.from({ length: promptLength }, () => draw(rng)));
  const options = { maxNewTokens: newTokens, temperature: 1, stopIds: [], rng };
  await sampleTokens(model, prompts, { ...options, maxNewTokens: 2 });
  let start = performance.now();
  await sampleTokens(model, prompts, options);
  const seconds = (performance.now() - start) / 1000;
  start = performance.now();
  await sampleTokens(model, prompts, { ...options, maxNewTokens: 1 });
  const prefillSeconds = (performance.now() - start) / 1000;
  return { tokensPerSecond: (rows * newTokens) / seconds, seconds, prefillSeconds, decodingTokensPerSecond: decodingRate(rows * (newTokens - 1), seconds - prefillSeconds) };
}

/** Tokens per second over the time the steps after the prefill took; NaN where that time is not positive. */
export function decodingRate(tokens: number, seconds: number): number {
  return seconds > 0 ? tokens / seconds : Number.NaN;
}

/** "1 rows 31.2, ..." and the prefill's share of each rollout. */
export function describeSampling(rates: Array<{ rows: number; times: SamplingTimes }>, digits = 1): string {
  const whole = rates.map(({ rows, times }) => `${rows} rows ${times.tokensPerSecond.toFixed(digits)}`).join(', ');
  const after = (rate: number) => (Number.isFinite(rate) ? `${rate.toFixed(digits)} tokens/s after it` : 'the steps after it too short to time apart');
  const parts = rates.map(({ rows, times }) => `${rows} rows ${times.prefillSeconds.toFixed(3)} of ${times.seconds.toFixed(3)} s, ${after(times.decodingTokensPerSecond)}`).join('; ');
  return `${whole} (prefill and first token: ${parts})`;
}

export function describeDecode(c: DecodeCounts): string {
  return (
    `${c.dispatchesPerStep.toFixed(1)} dispatches per decoding step (${c.kernelsPerStep.toFixed(1)} tfjs kernels, ${c.recordedPerStep.toFixed(1)} replayed by the recorded step), ` +
    `${c.readbacksPerStep.toFixed(1)} readbacks per step, ${c.pipelinesCompiled} pipelines compiled in a repeated rollout`
  );
}

export function describeTraining(c: GpuCounts & { dispatchesPerToken: number }): string {
  return `training step: ${c.dispatches} dispatches (${c.dispatchesPerToken.toFixed(2)} per token, ${c.kernels} tfjs kernels), ${c.readbacks} readbacks, ${c.pipelinesCompiled} pipelines compiled after warm-up`;
}

/**
 * GPU time by kernel for one run of `f` (tf.profile: on WebGPU with timestamp queries, each
 * program's own time; without them, wall time), the `top` largest, as one line each (see
 * kernelTimeLines). Kernels run outside the engine (the KV-cache write) are not listed.
 */
export async function profileKernels(f: () => Promise<unknown>, top = 12): Promise<string[]> {
  const info = await tf.profile(async () => {
    await f();
    return [];
  });
  return kernelTimeLines(info.kernels.map((k) => ({ name: k.name, ms: typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0 })), top);
}

/**
 * Lines of GPU time by kernel name, largest first, each with its runs and share of the total.
 * A kernel registered once per layer kind (`TurnLabTiledDecodeLinear[gated]`) gets one line for
 * all its kinds, then one indented line per kind, largest first.
 */
export function kernelTimeLines(kernels: readonly { name: string; ms: number }[], top = 12): string[] {
  type Entry = { ms: number; count: number; parts: Map<string, { ms: number; count: number }> };
  const byName = new Map<string, Entry>();
  for (const kernel of kernels) {
    const split = /^(.+)\[([^\]]+)\]$/.exec(kernel.name);
    const name = split ? split[1] : kernel.name;
    const entry = byName.get(name) ?? { ms: 0, count: 0, parts: new Map() };
    entry.ms += kernel.ms;
    entry.count++;
    if (split) {
      const part = entry.parts.get(kernel.name) ?? { ms: 0, count: 0 };
      part.ms += kernel.ms;
      part.count++;
      entry.parts.set(kernel.name, part);
    }
    byName.set(name, entry);
  }
  const total = [...byName.values()].reduce((sum, e) => sum + e.ms, 0);
  const line = (name: string, e: { ms: number; count: number }) => `${name}: ${e.ms.toFixed(2)} ms in ${e.count} runs (${total > 0 ? ((100 * e.ms) / total).toFixed(1) : '0'}%)`;
  return [...byName.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, top)
    .flatMap(([name, e]) => [line(name, e), ...[...e.parts.entries()].sort((a, b) => b[1].ms - a[1].ms).map(([part, p]) => `  ${line(part, p)}`)]);
}
