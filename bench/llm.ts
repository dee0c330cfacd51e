/**
 * Pretrained-model throughput and memory: random BF16 weights (as the real checkpoints store
 * them) in the shapes of SmolLM2-135M and Qwen2.5-0.5B (with the Qwen vocabulary of 151,936
 * rows), rollout tokens/s with the KV cache, and for rows of several lengths sampling after a
 * prompt of that length and a LoRA training step (forward + backward through the frozen base +
 * Adam on the adapters), each with its peak memory, on the selected backend.
 * `npm run bench -- llm --help` lists the options.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { releaseBackend, selectBackend, type BackendRequest } from '../trainer-core/backend';
import { BACKENDS } from '../trainer-core/backend-names';
import { Adam } from '../trainer-core/model/adam';
import { parseHfConfig } from '../trainer-core/model/hf/config';
import { HfDecoder } from '../trainer-core/model/hf/decoder';
import { asPolicy } from '../trainer-core/model/hf/generate';
import { resolveTargetModules } from '../trainer-core/model/hf/lora';
import { sampleTokens } from '../trainer-core/model/sampler';
import { scoreTokens } from '../trainer-core/model/scoring';
import { Rng } from '../trainer-core/rng';
import { timeTrainingSteps, trainingStep } from './model';
import { SAMPLING_ROWS, decodeCounts, describeDecode, describeSampling, describeTraining, profileKernels, samplingTimes, trainingCounts, type SamplingTimes } from './lib/gpu-work';
import { PRESETS, randomBf16Tensors } from '../scripts/hf-random-model';
import { BenchArgumentError } from './lib/bench-errors';
import { WHOLE, notAmong, oneOf, runAlone, unknownOption, valueAfter, wholeNumber, wholeNumbers } from './lib/bench-args';
import { dateAndMachine } from './lib/machine';

const ROLLOUT = { rows: 4, promptLength: 32, newTokens: 16 };
const LORA = { rank: 8, alpha: 16, targetModules: resolveTargetModules('all-linear') };

export const USAGE = `llm: tokens/s and memory of sampling and LoRA training of random-weight pretrained shapes (the default presets take well over 10 min on 2 cores; --presets tiny-qwen2 --lengths 8 --rows 1 a few seconds)
usage: npm run bench -- llm [--backend B] [--presets P,...] [--lengths N,...] [--checkpointing on|off] [--steps N] [--train-rows N] [--rows N,...] [--layers N] [--vocab N] [--dtype auto|float32] [--profile]
  --backend        ${BACKENDS.join(', ')}; default auto
  --presets        model shapes with random BF16 weights, default smollm2-135m,qwen2.5-0.5b; any of ${Object.keys(PRESETS).join(', ')}
  --dtype          auto (default): the frozen base stays 16-bit (wasm, cpu, webgpu); float32:
                   widened on load (actor_rollout_ref.model.dtype). The "weights:" line gives the
                   bytes the weights hold (on webgpu, also the GPU buffers)
  --lengths        token lengths of the one-row sampling prompts and training steps, default 100,300,600
                   (the second half of a training row is scored, as a reply is)
  --checkpointing  on or off: recompute each layer in the backward pass (enable_gradient_checkpointing), default on
  --steps          timed training steps per length, default 1
  --train-rows     rows of each training step (each of every length), default 1
  --profile        also print GPU time by kernel of one batched-sampling rollout (the most
                   rows) and of one training step (the first length)
  --rows           row counts of the batched-sampling line, default ${SAMPLING_ROWS.join(',')}
  --layers         build each preset with this many layers (same per-layer structure), default the preset's
  --vocab          build each preset with this many vocabulary rows (llvmpipe binds at most 128 MiB
                   per buffer, and Qwen's embedding is 520 MiB), default the preset's
Also prints GPU dispatches per decoding step (per layer and fixed, from 1- and 2-layer models of
the shape), readbacks per step, pipelines compiled in a repeated rollout, and the same counts of
a training step.
Prints the date and machine, tokens/s of sampling and of each training step, each phase's peak
resident memory (VmHWM, reset before the phase), the wasm heap (its size only grows: the peak so
far; 4 GiB at most) and the backend's tensor bytes after it.`;

const OPTIONS = ['--backend', '--presets', '--lengths', '--checkpointing', '--steps', '--train-rows', '--rows', '--layers', '--vocab', '--dtype', '--profile'];

interface Options {
  backend: BackendRequest;
  presets: string[];
  lengths: number[];
  checkpointing: boolean;
  steps: number;
  rows: number[];
  layers: number;
  vocab: number;
  dtype: 'auto' | 'float32';
  trainRows: number;
  profile: boolean;
}

export function parseLlmBenchArgs(args: readonly string[]): Options {
  const options: Options = {
    backend: 'auto', presets: ['smollm2-135m', 'qwen2.5-0.5b'], lengths: [100, 300, 600], checkpointing: true, steps: 1,
    rows: SAMPLING_ROWS, layers: 0, vocab: 0, dtype: 'auto', trainRows: 1, profile: false,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--profile') {
      options.profile = true;
      continue;
    }
    if (!OPTIONS.includes(arg)) throw unknownOption(arg, OPTIONS);
    const value = (wanted: string) => valueAfter(args, i++, arg, wanted);
    if (arg === '--backend') options.backend = oneOf(arg, value(`one of ${BACKENDS.join(', ')}`), BACKENDS);
    else if (arg === '--presets') options.presets = value(`preset names separated by commas, e.g. --presets tiny-qwen2`).split(',');
    else if (arg === '--lengths') options.lengths = wholeNumbers(arg, value('token lengths separated by commas, e.g. --lengths 100,300'));
    else if (arg === '--checkpointing') options.checkpointing = oneOf(arg, value('on or off'), ['on', 'off']) === 'on';
    else if (arg === '--steps') options.steps = wholeNumber(arg, value(WHOLE));
    else if (arg === '--rows') options.rows = wholeNumbers(arg, value('row counts separated by commas, e.g. --rows 1,4'));
    else if (arg === '--layers') options.layers = wholeNumber(arg, value(WHOLE));
    else if (arg === '--vocab') options.vocab = wholeNumber(arg, value(WHOLE));
    else if (arg === '--dtype') options.dtype = oneOf(arg, value('auto or float32'), ['auto', 'float32']);
    else options.trainRows = wholeNumber(arg, value(WHOLE));
  }
  for (const name of options.presets) if (!PRESETS[name]) throw notAmong('--presets: unknown preset', name, Object.keys(PRESETS));
  if (!options.lengths.every((n) => n >= 4)) throw new BenchArgumentError(`--lengths ${options.lengths.join(',')}: token lengths of at least 4`);
  return options;
}

/** Starts a new peak-RSS window (Linux: writing 5 to clear_refs resets VmHWM). */
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // not Linux, or not allowed: the peak stays the process's
  }
}

/** The wasm backend's heap (WebAssembly memory only grows, so this is its peak), else null. */
function wasmHeapMiB(): number | null {
  if (tf.getBackend() !== 'wasm') return null;
  const memory = (tf.backend() as unknown as { wasm: { asm: { memory: { buffer: ArrayBuffer } } } }).wasm.asm.memory;
  return memory.buffer.byteLength / 2 ** 20;
}

/** The process's peak resident set so far (Linux VmHWM), else the current one. */
function peakRssMiB(): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (kb) return Number(kb[1]) / 1024;
  } catch {
    // not Linux
  }
  return process.memoryUsage().rss / 2 ** 20;
}

function memory(): string {
  const heap = wasmHeapMiB();
  return `peak RSS ${peakRssMiB().toFixed(0)} MiB, ${heap === null ? '' : `wasm heap ${heap.toFixed(0)} MiB, `}tensors ${(tf.memory().numBytes / 2 ** 20).toFixed(0)} MiB`;
}

/** Bytes of tensors held, and on WebGPU of GPU buffers in use (tfjs's buffer manager). */
function heldBytes(): { tensors: number; gpu: number | null } {
  const info = tf.memory() as tf.MemoryInfo & { numBytesInGPU?: number };
  return { tensors: info.numBytes, gpu: tf.getBackend() === 'webgpu' ? (info.numBytesInGPU ?? null) : null };
}

/**
 * What the model's weights (the base and the adapters) hold since `before`: tensor bytes and, on
 * WebGPU, the GPU buffers they take once one token's forward pass has uploaded every one.
 */
async function weightMemory(model: HfDecoder, before: { tensors: number; gpu: number | null }): Promise<string> {
  const logits = tf.tidy(() => model.forward({ tokens: tf.tensor2d([[0]], [1, 1], 'int32'), positions: tf.tensor2d([[0]], [1, 1], 'int32'), bias: tf.zeros([1, 1, 1, 1]) as tf.Tensor4D }).logits!);
  await logits.data();
  logits.dispose();
  const after = heldBytes();
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  const base = `${model.halfMatrices > 0 ? `${model.halfMatrices} base matrices 16-bit` : 'every weight float32'} (--dtype ${model.halfMatrices > 0 ? 'auto' : 'float32'})`;
  const gpu = after.gpu !== null && before.gpu !== null ? `, GPU buffers ${mib(after.gpu - before.gpu)}` : '';
  return `weights: tensors ${mib(after.tensors - before.tensors)}${gpu}; ${base}`;
}

function randomRows(rng: Rng, rows: number, length: number, vocab: number): number[][] {
  // Ordinary BPE ids (below the special tokens), so no row stops early.
  return Array.from({ length: rows }, () => Array.from({ length }, () => rng.int(Math.min(150000, vocab - 300))));
}

function presetShape(name: string, options: Options): Record<string, unknown> {
  return { ...PRESETS[name], ...(options.layers > 0 ? { num_hidden_layers: options.layers } : {}), ...(options.vocab > 0 ? { vocab_size: options.vocab } : {}) };
}

/**
 * Dispatches of one decoding step split into a per-layer part and a fixed part (embedding, final
 * norm, LM head, sampling), from 1- and 2-layer models of the preset's shape. The vocabulary is
 * cut to 4,096 rows: it changes the head's size, not how many dispatches it takes.
 */
async function perLayerDecode(name: string, options: Options, rows: number): Promise<{ perLayer: number; fixed: number }> {
  const counts: number[] = [];
  for (const layers of [1, 2]) {
    const shape = { ...PRESETS[name], num_hidden_layers: layers, vocab_size: 4096 };
    const model = HfDecoder.fromHfTensors(parseHfConfig(shape), randomBf16Tensors(shape, 1), { lora: LORA, seed: 1, contextLength: 512, dtype: options.dtype });
    const rng = new Rng(1);
    counts.push((await decodeCounts(asPolicy(model), randomRows(rng, rows, ROLLOUT.promptLength, 4096), rng)).dispatchesPerStep);
    model.dispose();
  }
  return { perLayer: counts[1] - counts[0], fixed: 2 * counts[0] - counts[1] };
}

async function benchPreset(name: string, options: Options): Promise<void> {
  // At the rollout's rows and at the most batched-sampling rows (the kernels tile by row count).
  const splits: string[] = [];
  for (const rows of new Set([ROLLOUT.rows, Math.max(...options.rows)])) {
    const split = await perLayerDecode(name, options, rows);
    splits.push(`${split.perLayer.toFixed(1)} dispatches per layer + ${split.fixed.toFixed(1)} per decoding step at ${rows} rows`);
  }
  console.log(`${name}: ${splits.join(', ')} (1- and 2-layer models of this shape)`);
  const shape = presetShape(name, options);
  const vocab = shape.vocab_size as number;
  const config = parseHfConfig(shape);
  resetPeakRss();
  const held = heldBytes();
  let start = performance.now();
  const model = HfDecoder.fromHfTensors(config, randomBf16Tensors(shape, 1), { lora: LORA, seed: 1, contextLength: 4096, dtype: options.dtype });
  const loadSeconds = (performance.now() - start) / 1000;
  console.log(`${name}: ${model.parameterSummary()} (built in ${loadSeconds.toFixed(1)} s; ${memory()})`);
  console.log(`  ${await weightMemory(model, held)}`);
  const rng = new Rng(1);
  const policy = asPolicy(model);
  const prompts = randomRows(rng, ROLLOUT.rows, ROLLOUT.promptLength, vocab);
  const sampling = { maxNewTokens: ROLLOUT.newTokens, temperature: 1, stopIds: [], rng };
  await sampleTokens(policy, prompts, { ...sampling, maxNewTokens: 2 });
  resetPeakRss();
  start = performance.now();
  await sampleTokens(policy, prompts, sampling);
  const rolloutSeconds = (performance.now() - start) / 1000;
  const generated = ROLLOUT.rows * ROLLOUT.newTokens;
  console.log(`  rollout:  ${(generated / rolloutSeconds).toFixed(1)} tokens/s (${ROLLOUT.rows} rows x ${ROLLOUT.newTokens} new tokens after ${ROLLOUT.promptLength}-token prompts, KV cache; ${memory()})`);

  console.log(`  decoding (${ROLLOUT.rows} rows, ${config.nLayers} layers): ${describeDecode(await decodeCounts(policy, prompts, rng))}`);
  const rates: Array<{ rows: number; times: SamplingTimes }> = [];
  for (const rows of options.rows) rates.push({ rows, times: await samplingTimes(policy, rows, ROLLOUT.promptLength, ROLLOUT.newTokens, rng, (r) => randomRows(r, 1, 1, vocab)[0][0]) });
  console.log(`  batched sampling (tokens/s, ${ROLLOUT.newTokens} new tokens after ${ROLLOUT.promptLength}): ${describeSampling(rates)}`);
  if (options.profile) {
    const rows = Math.max(...options.rows);
    const profiled = randomRows(rng, rows, ROLLOUT.promptLength, vocab);
    const lines = await profileKernels(() => sampleTokens(policy, profiled, { maxNewTokens: ROLLOUT.newTokens, temperature: 1, stopIds: [], rng }));
    console.log(`  GPU time by kernel, one rollout of ${rows} rows (prefill and ${ROLLOUT.newTokens} steps):\n    ${lines.join('\n    ')}`);
    // The prefill alone (and one token): what of the rollout's GPU time the decoding steps do not take.
    const prefill = await profileKernels(() => sampleTokens(policy, profiled, { maxNewTokens: 1, temperature: 1, stopIds: [], rng }));
    console.log(`  GPU time by kernel, the same prompts' prefill and first token:\n    ${prefill.join('\n    ')}`);
  }

  const optimizer = new Adam(model.namedVariables(), { learningRate: 1e-4 });
  for (const [i, length] of options.lengths.entries()) {
    resetPeakRss();
    start = performance.now();
    await sampleTokens(policy, randomRows(rng, 1, length, vocab), sampling);
    const sampleSeconds = (performance.now() - start) / 1000;
    console.log(`  sampling: ${(ROLLOUT.newTokens / sampleSeconds).toFixed(2)} tokens/s, ${ROLLOUT.newTokens} new tokens after a ${length}-token prompt (prefill included; ${memory()})`);
    resetPeakRss();
    const rows = randomRows(rng, options.trainRows, length, vocab);
    const scored = rows.map(() => Array.from({ length }, (_, t) => (t >= length / 2 ? 1 : 0)));
    const loss = () => scoreTokens(policy, rows, { logprobs: true, scored, checkpointLayers: options.checkpointing }).logprobs!.sum().neg() as tf.Scalar;
    try {
      // One warm-up step before the first length only: a step of a large model is minutes long.
      const seconds = await timeTrainingSteps(model, optimizer, loss, options.steps, i === 0);
      const tokens = options.trainRows * length;
      console.log(`  training: ${((tokens * options.steps) / seconds).toFixed(1)} tokens/s on ${options.trainRows === 1 ? 'a' : `${options.trainRows} x`} ${length}-token row${options.trainRows === 1 ? '' : 's'} (${length / 2} scored per row; LoRA rank ${LORA.rank} on all linear layers, checkpointing ${options.checkpointing ? 'on' : 'off'}, forward + backward + Adam; ${memory()})`);
      if (i === 0) console.log(`  ${describeTraining(await trainingCounts(trainingStep(model, optimizer, loss), tokens))}`);
      if (i === 0 && options.profile) console.log(`  GPU time by kernel, one training step:\n    ${(await profileKernels(trainingStep(model, optimizer, loss))).join('\n    ')}`);
    } catch (error) {
      console.log(`  training: a ${length}-token row failed: ${error instanceof Error ? error.message : String(error)} (${memory()})`);
      break;
    }
  }
  optimizer.dispose();
  model.dispose();
}

/** `args`: the words after `llm` (`npm run bench -- llm --lengths 100`). */
export default async function benchLlm(args: readonly string[]): Promise<void> {
  const options = parseLlmBenchArgs(args);
  console.log(dateAndMachine());
  // Its one line names the backend and why auto passed over the others.
  await selectBackend(options.backend, (line) => console.log(line));
  for (const name of options.presets) await benchPreset(name, options);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runAlone('llm', USAGE, benchLlm);
  await releaseBackend();
}
