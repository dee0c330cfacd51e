/**
 * One micro-batch's loss and gradients, from plain data: the token rows, their training
 * documents and the batch arrays cut to the micro-batch. Plain data, so that a worker thread
 * (trainer.workers) computes exactly what the main thread would from the same weights.
 */
import * as tf from '@tensorflow/tfjs';
import { aggLoss, klLoss, policyLoss, valueLoss, type AggOptions, type LossAggMode } from '../algo/losses';
import type { KlType } from '../algo/kl';
import { scoreTokens } from './scoring';
import type { TrainableModel } from './trainable-model';
import { explainMicroBatchMemory } from './backend-memory';

export interface MicroBatch {
  /** Token rows of the micro-batch. */
  rows: number[][];
  /** Their training documents (see TrainingBatch.documents). */
  documents: number[][];
  /** The widest row's length: each array below is [rows, width], row-major. */
  width: number;
  /** Batch arrays cut to this micro-batch, by name (mask, oldLogprobs, advantages, ...). */
  arrays: Record<string, Float32Array>;
  /** Normalises by the whole mini-batch, so micro-batch losses add up to its loss. */
  aggOptions: AggOptions;
}

export interface ActorLossSettings {
  temperature: number;
  clipLow: number;
  clipHigh: number;
  clipRatioC: number;
  aggMode: LossAggMode;
  entropyCoeff: number;
  /** KL to the reference as a loss term (the micro-batch then carries refLogprobs). */
  klLoss: { coef: number; type: KlType } | null;
  /**
   * The policy's own value head fitted to each token's return to go (the micro-batch then
   * carries returns), weighted by coef beside the policy loss: the trunk is shared, so what
   * predicts the outcome is learnt where the move is chosen (aux_value_coef).
   */
  auxValue: { coef: number } | null;
  /** Recompute each layer's activations in the backward pass. */
  checkpointLayers: boolean;
}

export interface CriticLossSettings {
  cliprange: number;
  aggMode: LossAggMode;
  checkpointLayers: boolean;
}

/** The warm start's supervised loss: the demonstrated replies' negative log-likelihood per token. */
export type LossSpec = { role: 'actor'; settings: ActorLossSettings } | { role: 'critic'; settings: CriticLossSettings } | { role: 'supervised' };

/** Reported scalars that are themselves sums over micro-batches (losses); the rest are fractions. */
export const SUMMED_SCALARS: Record<LossSpec['role'], ReadonlySet<string>> = {
  actor: new Set(['pg_loss', 'entropy', 'kl_loss', 'aux_vf_loss']),
  critic: new Set(['vf_loss']),
  supervised: new Set(['loss']),
};

/** The batch arrays each role's loss reads. */
export const LOSS_ARRAYS: Record<LossSpec['role'], (spec: LossSpec) => string[]> = {
  actor: (spec) => [
    'mask',
    'oldLogprobs',
    'advantages',
    ...(spec.role === 'actor' && spec.settings.klLoss ? ['refLogprobs'] : []),
    ...(spec.role === 'actor' && spec.settings.auxValue ? ['returns'] : []),
  ],
  critic: () => ['mask', 'oldValues', 'returns'],
  supervised: () => ['mask'],
};

export interface MicroBatchGradients {
  /** Gradients by parameter name. */
  grads: Record<string, tf.Tensor>;
  /** The reported scalars, read. */
  scalars: Record<string, number>;
}

export async function microBatchGradients(model: TrainableModel, micro: MicroBatch, spec: LossSpec): Promise<MicroBatchGradients> {
  const names = new Map(model.namedVariables().map(([name, variable]) => [variable.name, name]));
  const kept: Record<string, tf.Scalar> = {};
  const keep = (name: string, scalar: tf.Scalar) => {
    kept[name] = tf.keep(scalar);
  };
  let computed: { grads: tf.NamedTensorMap; value: tf.Scalar };
  try {
    computed = tf.tidy(() => tf.variableGrads(() => lossOf(model, micro, spec, keep), model.variables()));
  } catch (error) {
    throw explainMicroBatchMemory(error, spec.role, micro.rows.length, micro.width, spec.role !== 'supervised' && spec.settings.checkpointLayers);
  }
  const { grads, value } = computed;
  const named: Record<string, tf.Tensor> = {};
  for (const [variableName, grad] of Object.entries(grads)) named[names.get(variableName) ?? variableName] = grad;
  // Read together: on a GPU each read waits for the device, one read instead of one per scalar.
  const entries = Object.entries(kept);
  const stacked = entries.length > 0 ? tf.stack(entries.map(([, scalar]) => scalar)) : null;
  const values = stacked ? await stacked.data() : [];
  stacked?.dispose();
  const scalars: Record<string, number> = {};
  entries.forEach(([key, scalar], i) => {
    scalars[key] = values[i];
    if (scalar !== value) scalar.dispose();
  });
  value.dispose();
  return { grads: named, scalars };
}

function lossOf(model: TrainableModel, micro: MicroBatch, spec: LossSpec, keep: (name: string, scalar: tf.Scalar) => void): tf.Scalar {
  const tensor = (name: string) => tf.tensor2d(micro.arrays[name], [micro.rows.length, micro.width]);
  const mask = tensor('mask');
  const { aggOptions, rows, documents } = micro;
  // The LM head runs only where the loss reads a logprob: the mask's columns.
  const scored = rows.map((row, b) => micro.arrays.mask.subarray(b * micro.width, b * micro.width + row.length));
  if (spec.role === 'supervised') {
    // Normalised by the whole step's token count, so the micro-batches' losses add up to it.
    const logp = scoreTokens(model, rows, { logprobs: true, documents, scored }).logprobs as tf.Tensor2D;
    const loss = logp.mul(mask).sum().div(-(aggOptions.globalTokens ?? 1)) as tf.Scalar;
    keep('loss', loss);
    return loss;
  }
  if (spec.role === 'critic') {
    const values = scoreTokens(model, rows, { logprobs: false, values: true, documents, checkpointLayers: spec.settings.checkpointLayers }).values as tf.Tensor2D;
    const vl = valueLoss({ values, oldValues: tensor('oldValues'), returns: tensor('returns'), mask, cliprange: spec.settings.cliprange, aggMode: spec.settings.aggMode, aggOptions });
    keep('vf_clipfrac', vl.clipfrac);
    keep('vf_loss', vl.loss);
    return vl.loss;
  }
  const s = spec.settings;
  const scores = scoreTokens(model, rows, { temperature: s.temperature, logprobs: true, entropy: true, values: s.auxValue !== null, documents, scored, checkpointLayers: s.checkpointLayers });
  const logp = scores.logprobs as tf.Tensor2D;
  const pg = policyLoss({
    logp,
    oldLogp: tensor('oldLogprobs'),
    advantages: tensor('advantages'),
    mask,
    clipLow: s.clipLow,
    clipHigh: s.clipHigh,
    clipRatioC: s.clipRatioC,
    aggMode: s.aggMode,
    aggOptions,
  });
  const entropy = aggLoss(scores.entropy as tf.Tensor2D, mask, s.aggMode, aggOptions);
  keep('pg_loss', pg.loss);
  keep('pg_clipfrac', pg.clipfrac);
  keep('pg_clipfrac_lower', pg.clipfracLower);
  keep('ppo_kl', pg.ppoKl);
  keep('entropy', entropy);
  let loss = pg.loss.sub(entropy.mul(s.entropyCoeff));
  if (s.klLoss) {
    const kl = klLoss({ logp, refLogp: tensor('refLogprobs'), mask, type: s.klLoss.type, aggMode: s.aggMode, aggOptions });
    keep('kl_loss', kl);
    loss = loss.add(kl.mul(s.klLoss.coef));
  }
  if (s.auxValue) {
    const squared = tf.square(tf.sub(scores.values as tf.Tensor2D, tensor('returns')));
    const vf = tf.mul(aggLoss(squared, mask, s.aggMode, aggOptions), 0.5) as tf.Scalar;
    keep('aux_vf_loss', vf);
    loss = loss.add(vf.mul(s.auxValue.coef));
  }
  return loss as tf.Scalar;
}
