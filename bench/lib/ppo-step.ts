/**
 * The standard model's PPO actor step (one mini-batch of rows x length tokens: score, clipped
 * policy loss with an entropy bonus, backward, clip, Adam) through the trainer's own update
 * code, on this thread alone or with worker threads: the step `npm run bench -- model` compares
 * with PyTorch's (scripts/torch-ppo-step.py).
 */
import type { BackendName } from '../../trainer-core/backend';
import { Adam } from '../../trainer-core/model/adam';
import { setFusedKernels } from '../../trainer-core/model/fused-kernels';
import { countGpuWork, type GpuCounts } from '../../trainer-core/model/gpu-counters';
import { Transformer, type TransformerConfig } from '../../trainer-core/model/transformer';
import { Rng } from '../../trainer-core/rng';
import type { TrainingBatch } from '../../trainer-core/train/batch';
import { scoreBatch, updateActor, type ActorUpdateSettings } from '../../trainer-core/train/ppo-update';
import { transformerSpec, WorkerPool } from '../../trainer-core/workers/worker-pool';

export const PPO_STEP = { rows: 8, length: 128, steps: 2 };

function uniformBatch(rng: Rng, rows: number, length: number, vocab: number): TrainingBatch {
  const tokens = Array.from({ length: rows }, () => Array.from({ length }, () => 2 + rng.int(vocab - 2)));
  const mask = new Float32Array(rows * length);
  for (let b = 0; b < rows; b++) for (let t = 1; t < length; t++) mask[b * length + t] = 1;
  return {
    rows,
    cols: length,
    tokens,
    mask,
    rewards: new Float32Array(rows * length),
    oldLogprobs: new Float32Array(rows * length),
    turnEnds: tokens.map(() => [length - 1]),
    stateKeys: tokens.map(() => ['']),
    documents: tokens.map(() => new Array<number>(length).fill(0)),
    groupIds: tokens.map((_, b) => b),
    episodes: [],
  };
}

/** Trained tokens per second of the step with `shards` threads (1: this thread only). */
export async function ppoStepTokensPerSecond(config: TransformerConfig, backend: BackendName, shards: number): Promise<number> {
  return withPpoStep(config, backend, shards, async (step) => {
    await step();
    const start = performance.now();
    for (let i = 0; i < PPO_STEP.steps; i++) await step();
    const seconds = (performance.now() - start) / 1000;
    return (PPO_STEP.rows * (PPO_STEP.length - 1) * PPO_STEP.steps) / seconds;
  });
}

/**
 * GPU work of one step on this thread (after a warm-up step), with the fused kernels on and off
 * (the tfjs reference everywhere: the "before"), per trained token.
 */
export async function ppoStepCounts(config: TransformerConfig, backend: BackendName): Promise<{ fused: GpuCounts; reference: GpuCounts; tokens: number }> {
  const counted = async (fused: boolean) => {
    setFusedKernels(fused);
    try {
      return await withPpoStep(config, backend, 1, async (step) => {
        await step();
        return (await countGpuWork(step)).counts;
      });
    } finally {
      setFusedKernels(true);
    }
  };
  return { fused: await counted(true), reference: await counted(false), tokens: PPO_STEP.rows * (PPO_STEP.length - 1) };
}

async function withPpoStep<T>(config: TransformerConfig, backend: BackendName, shards: number, measure: (step: () => Promise<unknown>) => Promise<T>): Promise<T> {
  const model = Transformer.create(config, 1);
  const rng = new Rng(2);
  const batch = uniformBatch(rng, PPO_STEP.rows, PPO_STEP.length, model.config.vocabSize);
  batch.oldLogprobs = (await scoreBatch(model, batch, { logprobs: true, chunk: PPO_STEP.rows })).logprobs as Float32Array;
  const advantages = batch.mask.map((m) => m * rng.normal());
  const settings: ActorUpdateSettings = {
    miniBatchSize: PPO_STEP.rows,
    microBatchSize: Math.ceil(PPO_STEP.rows / shards),
    epochs: 1,
    normLength: PPO_STEP.length,
    clipLow: 0.2,
    clipHigh: 0.28,
    clipRatioC: 3,
    aggMode: 'token-mean',
    entropyCoeff: 0.01,
    temperature: 1,
    gradClip: 1,
    klLoss: null,
  };
  const optimizer = new Adam(model.namedVariables(), { learningRate: 1e-4 });
  const pool = shards > 1 ? await WorkerPool.start(shards - 1, backend, { policy: await transformerSpec(model) }) : null;
  try {
    return await measure(() => updateActor(model, optimizer, batch, advantages, settings, new Rng(3), pool ? { pool, role: 'policy' } : undefined));
  } finally {
    await pool?.dispose();
    optimizer.dispose();
    model.dispose();
  }
}
