/**
 * Model throughput on the selected backend for the standard model size: rollout tokens/s (KV-cache
 * sampling), training tokens/s (forward + backward + Adam), the GFLOP/s those work out to, and
 * the backend's raw matmul GFLOP/s beside them (the ceiling the model could reach). Then the
 * trainer's PPO actor step on one thread and with every core (trainer.workers), beside the same
 * step in PyTorch on one thread when python3-torch is installed, with the ratios.
 * Run alone: npx tsx bench/model.ts [backend] [--small]
 */
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { releaseBackend, selectBackend, type BackendRequest } from '../trainer-core/backend';
import { BACKENDS } from '../trainer-core/backend-names';
import { Adam } from '../trainer-core/model/adam';
import { sampleTokens } from '../trainer-core/model/sampler';
import { scoreTokens } from '../trainer-core/model/scoring';
import { Transformer, type ResolvedTransformerConfig, type TransformerConfig } from '../trainer-core/model/transformer';
import { Rng } from '../trainer-core/rng';
import { resolveWorkerCount } from '../trainer-core/workers/worker-count';
import { SAMPLING_ROWS, decodeCounts, describeDecode, describeSampling, describeTraining, samplingTimes, trainingCounts, type SamplingTimes } from './lib/gpu-work';
import { PPO_STEP, ppoStepCounts, ppoStepTokensPerSecond } from './lib/ppo-step';
import type { GpuCounts } from '../trainer-core/model/gpu-counters';
import { torchStepTokensPerSecond } from './lib/torch-step';
import { BenchArgumentError } from './lib/bench-errors';
import { oneOf, runAlone, unknownOption } from './lib/bench-args';
import { dateAndMachine, peakRssMiB } from './lib/machine';

export const USAGE = `model: tokens/s and GFLOP/s of the standard model's rollout and training, and the PPO actor step on 1 thread and on every core (about 20 s on 2 cores; --small a few seconds)
usage: npm run bench -- model [backend] [--small]
  backend   ${BACKENDS.join(', ')}; default auto
  --small   every size cut: a check that the bench runs (e.g. on llvmpipe), figures that compare with nothing`;

export function parseModelArgs(args: readonly string[]): { backend: BackendRequest; small: boolean } {
  let backend: BackendRequest | null = null;
  let small = false;
  for (const arg of args) {
    if (arg === '--small') small = true;
    else if (arg.startsWith('-')) throw unknownOption(arg, ['--small']);
    else if (backend !== null) throw new BenchArgumentError(`one backend at a time: ${backend} and ${arg}`);
    else backend = oneOf('backend', arg, BACKENDS);
  }
  return { backend: backend ?? 'auto', small };
}

export const STANDARD_MODEL: TransformerConfig = { vocabSize: 512, contextLength: 256, dModel: 128, nLayers: 4, nHeads: 4, valueHead: true };

const ROLLOUT = { rows: 16, promptLength: 32, newTokens: 64 };
const TRAIN = { rows: 8, length: 128, steps: 2 };

/** Forward FLOPs of one token that attends to `keys` positions. */
function forwardFlopsPerToken(c: ResolvedTransformerConfig, keys: number): number {
  const d = c.dModel;
  const perLayer = 2 * (3 * d * d + d * d + 2 * d * c.dMlp) + 4 * keys * d;
  return c.nLayers * perLayer + 2 * d * c.vocabSize + 2 * d;
}

async function rawMatmulGflops(size = 512, reps = 5): Promise<number> {
  const a = tf.randomNormal([size, size]);
  const b = tf.randomNormal([size, size]);
  const once = async () => {
    const c = tf.matMul(a, b);
    await c.data();
    c.dispose();
  };
  await once();
  const start = performance.now();
  for (let i = 0; i < reps; i++) await once();
  const seconds = (performance.now() - start) / 1000;
  tf.dispose([a, b]);
  return (2 * size ** 3 * reps) / seconds / 1e9;
}

function randomRows(rng: Rng, rows: number, length: number, vocab: number): number[][] {
  return Array.from({ length: rows }, () => Array.from({ length }, () => 2 + rng.int(vocab - 2)));
}

type Trainable = { variables(): tf.Variable[]; nameGradients(grads: tf.NamedTensorMap): Record<string, tf.Tensor> };

/** One optimizer step on `loss` (forward + backward + Adam), ending in one readback of the loss. */
export function trainingStep(model: Trainable, optimizer: Adam, loss: () => tf.Scalar): () => Promise<void> {
  return async () => {
    const { value, grads } = tf.variableGrads(loss, model.variables());
    optimizer.apply(model.nameGradients(grads));
    await value.data();
    tf.dispose([value, ...Object.values(grads)]);
  };
}

/** Seconds for `steps` optimizer steps on `loss` (forward + backward + Adam), after one warm-up step unless `warmUp` is false. */
export async function timeTrainingSteps(
  model: Trainable,
  optimizer: Adam,
  loss: () => tf.Scalar,
  steps: number,
  warmUp = true,
): Promise<number> {
  const step = trainingStep(model, optimizer, loss);
  if (warmUp) await step();
  const start = performance.now();
  for (let i = 0; i < steps; i++) await step();
  return (performance.now() - start) / 1000;
}

/** `args`: the words after `model` (`npm run bench -- model wasm --small`). */
export default async function benchModel(args: readonly string[]): Promise<void> {
  const { backend, small } = parseModelArgs(args);
  if (small) {
    Object.assign(ROLLOUT, { rows: 4, promptLength: 8, newTokens: 8 });
    Object.assign(TRAIN, { rows: 2, length: 32, steps: 1 });
    Object.assign(PPO_STEP, { rows: 2, length: 32, steps: 1 });
  }
  const samplingRows = small ? [1, 4] : SAMPLING_ROWS;
  console.log(dateAndMachine());
  // Its one line names the backend and why auto passed over the others.
  const choice = await selectBackend(backend, (line) => console.log(line));
  const model = Transformer.create(STANDARD_MODEL, 1);
  const c = model.config;
  const rng = new Rng(1);
  console.log(
    `model: ${c.nLayers} layers, d_model ${c.dModel}, ${c.nHeads} heads, context ${c.contextLength}, vocab ${c.vocabSize}, ${(model.parameterCount() / 1e6).toFixed(2)} M parameters`,
  );

  // Rollout: no stop ids, so every row generates exactly newTokens.
  const prompts = randomRows(rng, ROLLOUT.rows, ROLLOUT.promptLength, c.vocabSize);
  const sampleOptions = { maxNewTokens: ROLLOUT.newTokens, temperature: 1, stopIds: [], rng };
  await sampleTokens(model, prompts, { ...sampleOptions, maxNewTokens: 4 });
  const start = performance.now();
  await sampleTokens(model, prompts, sampleOptions);
  const rolloutSeconds = (performance.now() - start) / 1000;
  const generated = ROLLOUT.rows * ROLLOUT.newTokens;
  const averageKeys = ROLLOUT.promptLength + ROLLOUT.newTokens / 2;
  const rolloutFlops = ROLLOUT.rows * ROLLOUT.promptLength * forwardFlopsPerToken(c, ROLLOUT.promptLength) + generated * forwardFlopsPerToken(c, averageKeys);

  // Training: PPO-shaped loss (logprobs + values), backward, Adam.
  const optimizer = new Adam(model.namedVariables(), { learningRate: 1e-4 });
  const batch = randomRows(rng, TRAIN.rows, TRAIN.length, c.vocabSize);
  const loss = () => {
    const scores = scoreTokens(model, batch, { logprobs: true, values: true });
    return scores.logprobs!.mean().neg().add(scores.values!.square().mean()) as tf.Scalar;
  };
  const trainSeconds = await timeTrainingSteps(model, optimizer, loss, TRAIN.steps);
  const trainTokens = TRAIN.rows * TRAIN.length * TRAIN.steps;
  const trainFlops = 3 * trainTokens * forwardFlopsPerToken(c, TRAIN.length);

  const decode = await decodeCounts(model, prompts, rng);
  const training = await trainingCounts(trainingStep(model, optimizer, loss), TRAIN.rows * TRAIN.length);
  const rates: Array<{ rows: number; times: SamplingTimes }> = [];
  for (const rows of samplingRows) rates.push({ rows, times: await samplingTimes(model, rows, ROLLOUT.promptLength, ROLLOUT.newTokens, rng, (r) => 2 + r.int(c.vocabSize - 2)) });

  const raw = await rawMatmulGflops();
  optimizer.dispose();
  model.dispose();

  console.log(
    `rollout:  ${(generated / rolloutSeconds).toFixed(0)} tokens/s (${ROLLOUT.rows} rows x ${ROLLOUT.newTokens} new tokens after ${ROLLOUT.promptLength}-token prompts, KV cache), ${(rolloutFlops / rolloutSeconds / 1e9).toFixed(2)} GFLOP/s`,
  );
  console.log(
    `training: ${(trainTokens / trainSeconds).toFixed(0)} tokens/s (${TRAIN.rows} x ${TRAIN.length} tokens, forward + backward + Adam), ${(trainFlops / trainSeconds / 1e9).toFixed(2)} GFLOP/s`,
  );
  console.log(`raw matmul (512 x 512, float32): ${raw.toFixed(2)} GFLOP/s`);
  console.log(`batched sampling (tokens/s, ${ROLLOUT.newTokens} new tokens after ${ROLLOUT.promptLength}): ${describeSampling(rates, 0)}`);
  console.log(`decoding (${ROLLOUT.rows} rows): ${describeDecode(decode)}`);
  console.log(describeTraining(training));

  const shape = `${PPO_STEP.rows} x ${PPO_STEP.length} tokens, clipped policy loss + entropy, backward, clip, Adam`;
  // Dispatches per trained token: on a GPU a small model's step is bound by them, not by FLOPs.
  const ppo = await ppoStepCounts(STANDARD_MODEL, choice.name);
  const perToken = (c: GpuCounts) => `${c.dispatches} dispatches (${(c.dispatches / ppo.tokens).toFixed(2)} per trained token, ${c.kernels} tfjs kernels), ${c.readbacks} readbacks`;
  console.log(`PPO actor step (${PPO_STEP.rows} x ${PPO_STEP.length}, 1 thread): ${perToken(ppo.fused)}; fused kernels off (TURNLAB_FUSED_KERNELS=0, the before): ${perToken(ppo.reference)}`);
  const alone = await ppoStepTokensPerSecond(STANDARD_MODEL, choice.name, 1);
  const { count, note } = resolveWorkerCount('auto', { backend: choice.name });
  const all = count > 1 ? await ppoStepTokensPerSecond(STANDARD_MODEL, choice.name, count) : alone;
  console.log(`PPO actor step (${shape}):`);
  console.log(`  TurnLab, 1 thread:        ${alone.toFixed(0)} tokens/s`);
  console.log(`  TurnLab, workers auto (${count}): ${all.toFixed(0)} tokens/s${note ? ` (${note})` : ''}`);
  // auto stops at 8 shards; the issue compares a GPU with every core of its machine.
  const cores = availableParallelism();
  if (count > 1 && cores > count) console.log(`  TurnLab, every core (${cores}): ${(await ppoStepTokensPerSecond(STANDARD_MODEL, choice.name, cores)).toFixed(0)} tokens/s`);
  const torch = torchStepTokensPerSecond(STANDARD_MODEL, 1);
  if ('missing' in torch) {
    console.log(`  PyTorch, 1 thread:        not measured: ${torch.missing}`);
  } else {
    console.log(`  PyTorch ${torch.version}, 1 thread: ${torch.tokensPerSecond.toFixed(0)} tokens/s`);
    console.log(`  ratio to PyTorch's 1 thread: ${(alone / torch.tokensPerSecond).toFixed(2)}x on 1 thread, ${(all / torch.tokensPerSecond).toFixed(2)}x with every core`);
  }
  console.log(`peak RSS ${peakRssMiB().toFixed(0)} MiB (the process, this bench's work and what ran before it)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runAlone('model', USAGE, benchModel);
  await releaseBackend();
}
