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
import { timeTrainingSteps } from './model';
import { PRESETS, randomHfTensors } from '../scripts/hf-random-model';

const ROLLOUT = { rows: 4, promptLength: 32, newTokens: 16 };
const TRAIN = { rows: 2, length: 64, steps: 1 };
const LORA = { rank: 8, alpha: 16, targetModules: resolveTargetModules('all-linear') };

function randomRows(rng: Rng, rows: number, length: number): number[][] {
  // Ordinary BPE ids (below the special tokens), so no row stops early.
  return Array.from({ length: rows }, () => Array.from({ length }, () => rng.int(150000)));
}

async function benchPreset(name: string): Promise<void> {
  const config = parseHfConfig(PRESETS[name]);
  let start = performance.now();
  const model = HfDecoder.fromHfTensors(config, randomHfTensors(PRESETS[name], 1), { lora: LORA, seed: 1, contextLength: 4096 });
  const loadSeconds = (performance.now() - start) / 1000;
  console.log(`${name}: ${model.parameterSummary()} (built in ${loadSeconds.toFixed(1)} s)`);
  const rng = new Rng(1);
  const policy = asPolicy(model);
  const prompts = randomRows(rng, ROLLOUT.rows, ROLLOUT.promptLength);
  const options = { maxNewTokens: ROLLOUT.newTokens, temperature: 1, stopIds: [], rng };
  await sampleTokens(policy, prompts, { ...options, maxNewTokens: 2 });
  start = performance.now();
  await sampleTokens(policy, prompts, options);
  const rolloutSeconds = (performance.now() - start) / 1000;
  const generated = ROLLOUT.rows * ROLLOUT.newTokens;
  console.log(`  rollout:  ${(generated / rolloutSeconds).toFixed(1)} tokens/s (${ROLLOUT.rows} rows x ${ROLLOUT.newTokens} new tokens after ${ROLLOUT.promptLength}-token prompts, KV cache)`);

  const optimizer = new Adam(model.namedVariables(), { learningRate: 1e-4 });
  const batch = randomRows(rng, TRAIN.rows, TRAIN.length);
  const trainSeconds = await timeTrainingSteps(model, optimizer, () => scoreTokens(policy, batch, { logprobs: true }).logprobs!.mean().neg() as tf.Scalar, TRAIN.steps);
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
