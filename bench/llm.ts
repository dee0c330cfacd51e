/**
 * Pretrained-model throughput: random weights in the shapes of SmolLM2-135M and
 * Qwen2.5-0.5B (with the Qwen vocabulary of 151,936 rows), rollout tokens/s with the KV cache
 * and LoRA training tokens/s (forward + backward through the frozen base + Adam on the
 * adapters) on the selected backend.
 * Run alone: npx tsx bench/llm.ts [auto|wasm|cpu|webgpu|tensorflow] [preset ...]
 */
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { releaseBackend, selectBackend, type BackendRequest } from '../trainer-core/backend';
import { Adam } from '../trainer-core/model/adam';
import { parseHfConfig } from '../trainer-core/model/hf/config';
import { HfDecoder } from '../trainer-core/model/hf/decoder';
import { asPolicy } from '../trainer-core/model/hf/generate';
import { resolveTargetModules } from '../trainer-core/model/hf/lora';
import { sampleTokens } from '../trainer-core/model/sampler';
import { scoreTokens } from '../trainer-core/model/scoring';
import { Rng } from '../trainer-core/rng';
import { timeTrainingSteps, trainingStep } from './model';
import { SAMPLING_ROWS, decodeCounts, describeDecode, describeTraining, samplingRate, trainingCounts } from './lib/gpu-work';
import { PRESETS, randomHfTensors } from '../scripts/hf-random-model';

const ROLLOUT = { rows: 4, promptLength: 32, newTokens: 16 };
const TRAIN = { rows: 2, length: 64, steps: 1 };
const LORA = { rank: 8, alpha: 16, targetModules: resolveTargetModules('all-linear') };

function randomRows(rng: Rng, rows: number, length: number, vocab: number): number[][] {
  // Ordinary BPE ids (below the special tokens), so no row stops early.
  return Array.from({ length: rows }, () => Array.from({ length }, () => rng.int(Math.min(150000, vocab - 300))));
}

/**
 * Environment knobs for llvmpipe: TURNLAB_BENCH_LAYERS builds the preset with that many layers
 * (the per-layer structure is unchanged), TURNLAB_BENCH_VOCAB with that many vocabulary rows
 * (llvmpipe binds at most 128 MiB per buffer, and Qwen's embedding is 520 MiB), and
 * TURNLAB_BENCH_ROWS lists the row counts of the batched-sampling line.
 */
function presetShape(name: string): Record<string, unknown> {
  const layers = Number(process.env.TURNLAB_BENCH_LAYERS ?? 0);
  const vocab = Number(process.env.TURNLAB_BENCH_VOCAB ?? 0);
  return { ...PRESETS[name], ...(layers > 0 ? { num_hidden_layers: layers } : {}), ...(vocab > 0 ? { vocab_size: vocab } : {}) };
}

function vocabOf(name: string): number {
  return presetShape(name).vocab_size as number;
}

function samplingRows(): number[] {
  const listed = process.env.TURNLAB_BENCH_ROWS;
  return listed ? listed.split(',').map(Number) : SAMPLING_ROWS;
}

/**
 * Dispatches of one decoding step split into a per-layer part and a fixed part (embedding, final
 * norm, LM head, sampling), from 1- and 2-layer models of the preset's shape. The vocabulary is
 * cut to 4,096 rows: it changes the head's size, not how many dispatches it takes.
 */
async function perLayerDecode(name: string): Promise<{ perLayer: number; fixed: number }> {
  const counts: number[] = [];
  for (const layers of [1, 2]) {
    const shape = { ...PRESETS[name], num_hidden_layers: layers, vocab_size: 4096 };
    const model = HfDecoder.fromHfTensors(parseHfConfig(shape), randomHfTensors(shape, 1), { lora: LORA, seed: 1, contextLength: 512 });
    const rng = new Rng(1);
    const prompts = Array.from({ length: ROLLOUT.rows }, () => Array.from({ length: ROLLOUT.promptLength }, () => rng.int(4000)));
    counts.push((await decodeCounts(asPolicy(model), prompts, rng)).dispatchesPerStep);
    model.dispose();
  }
  return { perLayer: counts[1] - counts[0], fixed: 2 * counts[0] - counts[1] };
}

async function benchPreset(name: string): Promise<void> {
  const split = await perLayerDecode(name);
  console.log(`${name}: ${split.perLayer.toFixed(1)} dispatches per layer + ${split.fixed.toFixed(1)} per decoding step (1- and 2-layer models of this shape)`);
  const config = parseHfConfig(presetShape(name));
  let start = performance.now();
  const model = HfDecoder.fromHfTensors(config, randomHfTensors(presetShape(name), 1), { lora: LORA, seed: 1, contextLength: 4096 });
  const loadSeconds = (performance.now() - start) / 1000;
  console.log(`${name}: ${model.parameterSummary()} (built in ${loadSeconds.toFixed(1)} s)`);
  const rng = new Rng(1);
  const policy = asPolicy(model);
  const prompts = randomRows(rng, ROLLOUT.rows, ROLLOUT.promptLength, vocabOf(name));
  const options = { maxNewTokens: ROLLOUT.newTokens, temperature: 1, stopIds: [], rng };
  await sampleTokens(policy, prompts, { ...options, maxNewTokens: 2 });
  start = performance.now();
  await sampleTokens(policy, prompts, options);
  const rolloutSeconds = (performance.now() - start) / 1000;
  const generated = ROLLOUT.rows * ROLLOUT.newTokens;
  console.log(`  rollout:  ${(generated / rolloutSeconds).toFixed(1)} tokens/s (${ROLLOUT.rows} rows x ${ROLLOUT.newTokens} new tokens after ${ROLLOUT.promptLength}-token prompts, KV cache)`);

  console.log(`  decoding (${ROLLOUT.rows} rows, ${config.nLayers} layers): ${describeDecode(await decodeCounts(policy, prompts, rng))}`);
  const rates: string[] = [];
  for (const rows of samplingRows()) {
    rates.push(`${rows} rows ${(await samplingRate(policy, rows, ROLLOUT.promptLength, ROLLOUT.newTokens, rng, (r) => r.int(Math.min(150000, vocabOf(name) - 300)))).toFixed(1)}`);
  }
  console.log(`  batched sampling (tokens/s, ${ROLLOUT.newTokens} new tokens after ${ROLLOUT.promptLength}): ${rates.join(', ')}`);

  const optimizer = new Adam(model.namedVariables(), { learningRate: 1e-4 });
  const batch = randomRows(rng, TRAIN.rows, TRAIN.length, vocabOf(name));
  const loss = () => scoreTokens(policy, batch, { logprobs: true }).logprobs!.mean().neg() as tf.Scalar;
  const trainSeconds = await timeTrainingSteps(model, optimizer, loss, TRAIN.steps);
  console.log(`  ${describeTraining(await trainingCounts(trainingStep(model, optimizer, loss), TRAIN.rows * TRAIN.length))}`);
  optimizer.dispose();
  model.dispose();
  console.log(`  training: ${((TRAIN.rows * TRAIN.length * TRAIN.steps) / trainSeconds).toFixed(1)} tokens/s (LoRA rank ${LORA.rank} on all linear layers, ${TRAIN.rows} x ${TRAIN.length} tokens, forward + backward + Adam)`);
}

export default async function benchLlm(backend: BackendRequest = 'auto', presets: string[] = ['smollm2-135m', 'qwen2.5-0.5b']): Promise<void> {
  const choice = await selectBackend(backend, (line) => console.log(line));
  console.log(`backend: ${choice.name} on ${choice.device}`);
  for (const name of presets) {
    if (!PRESETS[name]) throw new Error(`unknown preset "${name}"; use one of ${Object.keys(PRESETS).join(', ')}`);
    await benchPreset(name);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [backend, ...presets] = process.argv.slice(2);
  await benchLlm((backend as BackendRequest | undefined) ?? 'auto', presets.length > 0 ? presets : undefined);
  await releaseBackend();
}
