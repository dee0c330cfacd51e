/**
 * Runs a step's micro-batches on this thread, or on this thread and the worker threads
 * (trainer.workers): contiguous blocks, the first here, read back in micro-batch order, so the
 * caller sums the gradients in the same order whatever the worker count.
 */
import * as tf from '@tensorflow/tfjs';
import { clipScale, globalNormAsync } from '../algo/grad-clip';
import type { Adam } from '../model/adam';
import { fusedKernels } from '../model/fused-kernels';
import type { TrainableModel } from '../model/trainable-model';
import type { ModelRole, NamedArrays } from '../workers/protocol';
import { contiguousBlocks, type WorkerPool } from '../workers/worker-pool';
import { microBatchGradients, type LossSpec, type MicroBatch, type MicroBatchGradients } from '../model/micro-batch-loss';

/** Worker threads holding a copy of the model a function computes with. */
export interface Parallel {
  pool: WorkerPool;
  role: ModelRole;
}

/** Calls `visit` with each micro-batch's gradients, in micro-batch order, wherever they were computed. */
export async function forEachMicroBatchGradient(
  model: TrainableModel,
  micros: MicroBatch[],
  spec: LossSpec,
  parallel: Parallel | undefined,
  visit: (result: MicroBatchGradients, index: number) => void,
): Promise<void> {
  const blocks = contiguousBlocks(micros.length, parallel ? parallel.pool.size + 1 : 1);
  const remote = blocks
    .slice(1)
    .map(([start, end], i) => (parallel as Parallel).pool.thread(i).call({ type: 'gradients', role: (parallel as Parallel).role, micros: micros.slice(start, end), spec }));
  // Awaited below in order; a failure on one must not go unhandled while another is awaited.
  remote.forEach((p) => p.catch(() => {}));
  for (let i = blocks[0][0]; i < blocks[0][1]; i++) visit(await microBatchGradients(model, micros[i], spec), i);
  for (let b = 0; b < remote.length; b++) {
    const results = await remote[b];
    results.forEach((result, j) => visit({ grads: toTensors(result.grads), scalars: result.scalars }, blocks[b + 1][0] + j));
  }
}

function toTensors(arrays: NamedArrays): Record<string, tf.Tensor> {
  return Object.fromEntries(Object.entries(arrays).map(([name, { shape, data }]) => [name, tf.tensor(data, shape, 'float32')]));
}

/** The global norm of the gradients: by the backend's fused sum of squares where it has one. */
async function gradientNorm(grads: tf.Tensor[]): Promise<number> {
  const fused = fusedKernels().sumOfSquares;
  if (!fused || grads.length === 0) return globalNormAsync(grads);
  const total = fused(grads);
  const squares = (await total.data())[0];
  total.dispose();
  return Math.sqrt(squares);
}

/** A step's gradient, summed micro-batch by micro-batch, then clipped and applied. */
export class GradientSum {
  private sum: Record<string, tf.Tensor> = {};

  /** Adds (and frees) gradients keyed by parameter name. */
  add(grads: Record<string, tf.Tensor>): void {
    for (const [name, grad] of Object.entries(grads)) {
      const previous = this.sum[name];
      if (previous) {
        this.sum[name] = tf.add(previous, grad);
        previous.dispose();
        grad.dispose();
      } else {
        this.sum[name] = grad;
      }
    }
  }

  /** Clips, applies one optimizer step (skipped when the norm is not finite), frees memory. */
  async step(optimizer: Adam, maxNorm: number): Promise<number> {
    // The clipping scale goes to the optimizer, which multiplies as it reads each gradient.
    const { norm, scale, finite } = clipScale(await gradientNorm(Object.values(this.sum)), maxNorm);
    if (finite) optimizer.apply(this.sum, scale);
    tf.dispose(Object.values(this.sum));
    this.sum = {};
    return norm;
  }
}
