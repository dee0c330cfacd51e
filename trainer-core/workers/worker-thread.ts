/**
 * A trainer worker thread: its own tfjs backend and copies of the run's models. It plays its
 * share of the rollout's episodes and computes the gradients and scores of the micro-batches it
 * is handed; the main thread sums gradients in a fixed order and owns the optimizer.
 * Requests are served one at a time, in the order they arrive.
 */
import { parentPort } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../backend';
import { scoreTokens } from '../model/scoring';
import { explainOutOfMemory, scoredRows } from '../model/backend-memory';
import { hfDecoderBuilder } from '../model/hf/load';
import type { HfDecoder } from '../model/hf/decoder';
import type { FrozenModel, TrainableModel } from '../model/trainable-model';
import { Transformer } from '../model/transformer';
import { Rng } from '../rng';
import { PolicyGenerator } from '../model/policy-generator';
import { microBatchGradients } from '../model/micro-batch-loss';
import { WORKER_MEMORY_FIX } from './worker-memory';
import type { GradientResult, ModelRole, NamedArrays, ScoreResult, WorkerModelSpec, WorkerReply, WorkerRequest } from './protocol';

/** A worker's models; a reference may be a view that trains nothing. */
const models = new Map<ModelRole, TrainableModel | FrozenModel>();
let generator: PolicyGenerator | null = null;

function model(role: ModelRole): TrainableModel | FrozenModel {
  const found = models.get(role);
  if (!found) throw new Error(`worker has no ${role} model`);
  return found;
}

function trainable(role: ModelRole): TrainableModel {
  const found = model(role);
  if (!('namedVariables' in found)) throw new Error(`the worker's ${role} model has nothing to train`);
  return found as TrainableModel;
}

/** Builds the run's models in role order (a reference view needs the policy), one read per model folder. */
async function buildModels(specs: Partial<Record<ModelRole, WorkerModelSpec>>): Promise<void> {
  const builders = new Map<string, Promise<(options: Extract<WorkerModelSpec, { kind: 'pretrained' }>['options']) => HfDecoder>>();
  for (const role of ['policy', 'critic', 'reference'] as const) {
    const spec = specs[role];
    if (!spec) continue;
    if (spec.kind === 'transformer') models.set(role, Transformer.fromArrays(spec.config, spec.arrays));
    else if (spec.kind === 'adapterless') models.set(role, (model(spec.of) as HfDecoder).withoutAdapters());
    else {
      if (!builders.has(spec.dir)) builders.set(spec.dir, hfDecoderBuilder(spec.dir, spec.config));
      models.set(role, (await builders.get(spec.dir)!)(spec.options));
    }
  }
}

async function handle(request: WorkerRequest): Promise<{ result: unknown; transfer: ArrayBuffer[] }> {
  switch (request.type) {
    case 'init': {
      await selectBackend(request.backend);
      await buildModels(request.models).catch((error: unknown) => {
        throw explainOutOfMemory(error, 'building the run\'s models on a worker thread', WORKER_MEMORY_FIX);
      });
      return { result: null, transfer: [] };
    }
    case 'weights': {
      const target = trainable(request.role);
      for (const [name, variable] of target.namedVariables()) {
        const entry = request.arrays[name];
        if (!entry) throw new Error(`weights for ${request.role} lack "${name}"`);
        tf.tidy(() => variable.assign(tf.tensor(entry.data, entry.shape, 'float32')));
      }
      return { result: null, transfer: [] };
    }
    case 'rollout-begin': {
      generator?.release();
      generator = new PolicyGenerator(model('policy'), new Rng(request.seed), request.padId, { prefixReuse: request.prefixReuse });
      return { result: null, transfer: [] };
    }
    case 'generate': {
      if (!generator) throw new Error('generate before rollout-begin');
      return { result: await generator.generate(request.prompts, request.options), transfer: [] };
    }
    case 'forget': {
      generator?.forget(request.rowKey);
      return { result: null, transfer: [] };
    }
    case 'rollout-end': {
      generator?.release();
      generator = null;
      return { result: null, transfer: [] };
    }
    case 'gradients': {
      const target = trainable(request.role);
      const results: GradientResult[] = [];
      for (const micro of request.micros) {
        const { grads, scalars } = await microBatchGradients(target, micro, request.spec);
        results.push({ grads: await readArrays(grads), scalars });
      }
      return { result: results, transfer: results.flatMap((r) => Object.values(r.grads).map((g) => g.data.buffer as ArrayBuffer)) };
    }
    case 'score': {
      const target = model(request.role);
      const results: ScoreResult[] = [];
      for (const job of request.jobs) {
        const width = Math.max(...job.rows.map((r) => r.length));
        const scores = scoredRows(() => ({ ...scoreTokens(target, job.rows, { ...request.settings, documents: job.documents, scored: job.scored }) }) as tf.NamedTensorMap, job.rows.length, width);
        const result: ScoreResult = { width };
        if (scores.logprobs) result.logprobs = ((await scores.logprobs.data()) as Float32Array).slice();
        if (scores.values) result.values = ((await scores.values.data()) as Float32Array).slice();
        tf.dispose(Object.values(scores));
        results.push(result);
      }
      return { result: results, transfer: results.flatMap((r) => [r.logprobs, r.values].filter((a) => a !== undefined).map((a) => a.buffer as ArrayBuffer)) };
    }
  }
}

/** Reads and frees a map of tensors. */
async function readArrays(tensors: Record<string, tf.Tensor>): Promise<NamedArrays> {
  const out: NamedArrays = {};
  for (const [name, tensor] of Object.entries(tensors)) {
    // A copy: the cpu backend hands out its own storage, which a transfer would detach.
    out[name] = { shape: [...tensor.shape], data: ((await tensor.data()) as Float32Array).slice() };
    tensor.dispose();
  }
  return out;
}

if (!parentPort) throw new Error('worker-thread.ts runs only as a worker thread');
const port = parentPort;
let queue: Promise<void> = Promise.resolve();
port.on('message', (message: { id: number; request: WorkerRequest }) => {
  queue = queue.then(async () => {
    let reply: WorkerReply;
    let transfer: ArrayBuffer[] = [];
    try {
      const handled = await handle(message.request);
      reply = { id: message.id, ok: true, result: handled.result };
      transfer = handled.transfer;
    } catch (error) {
      const known = error instanceof Error ? error : new Error(String(error));
      reply = { id: message.id, ok: false, error: known.stack ?? known.message, name: known.name, message: known.message };
    }
    port.postMessage(reply, transfer);
  });
});
