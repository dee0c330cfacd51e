import * as tf from '@tensorflow/tfjs';
import { klFamily, parseKlType, type KlType } from './kl';

/**
 * PPO-family losses on [B, T] tensors (B sequences, T tokens; mask 1 on generated tokens).
 * Every function returns fresh tensors (intermediates are tidied away); the caller disposes
 * what it gets. Inside tf.variableGrads / tf.grad, tensors other than the returned loss are
 * disposed when the function returns, so wrap the metrics you want to read in tf.keep there.
 */

export const LOSS_AGG_MODES = ['token-mean', 'seq-mean-token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'] as const;
export type LossAggMode = (typeof LOSS_AGG_MODES)[number];

export function parseLossAggMode(name: string): LossAggMode {
  if (!(LOSS_AGG_MODES as readonly string[]).includes(name)) {
    throw new RangeError(`unknown loss_agg_mode '${name}'; choose one of ${LOSS_AGG_MODES.join(', ')}`);
  }
  return name as LossAggMode;
}

export interface AggOptions {
  /**
   * Token count of the whole mini-batch when this call sees one micro-batch of it: token-mean then
   * divides by it, so the micro-batch losses add up to the mini-batch loss.
   */
  globalTokens?: number;
  /** Likewise, the number of sequences (with at least one generated token) in the mini-batch. */
  globalSeqs?: number;
  /** The constant length of seq-mean-token-sum-norm (Dr.GRPO's max length). Default: T. */
  normLength?: number;
}

/**
 * Reduces a per-token loss matrix to a scalar.
 * - token-mean: sum over generated tokens / their number.
 * - seq-mean-token-sum: per-sequence token sum, averaged over sequences.
 * - seq-mean-token-mean: per-sequence token mean, averaged over sequences.
 * - seq-mean-token-sum-norm: per-sequence token sum / a constant length, averaged over sequences
 *   (Dr.GRPO; verl divides the batch sum by T alone, which also scales the loss with B).
 * Sequences without generated tokens are left out of the sequence average, and empty inputs give
 * 0 instead of NaN, so a micro-batch of fully truncated sequences cannot poison the step.
 */
export function aggLoss(lossMat: tf.Tensor, mask: tf.Tensor, mode: LossAggMode = 'token-mean', options: AggOptions = {}): tf.Scalar {
  parseLossAggMode(mode);
  if (lossMat.rank !== 2 || !sameShape(lossMat, mask)) {
    throw new RangeError(`aggLoss needs a [B, T] loss and a mask of the same shape, got [${lossMat.shape}] and [${mask.shape}]`);
  }
  return tf.tidy(() => {
    const masked = tf.mul(lossMat, mask);
    if (mode === 'token-mean') {
      const denom = options.globalTokens !== undefined ? Math.max(options.globalTokens, 1) : tf.maximum(tf.sum(mask), 1);
      return tf.div(tf.sum(masked), denom) as tf.Scalar;
    }
    const tokensPerSeq = tf.sum(mask, 1);
    let perSeq = tf.sum(masked, 1);
    if (mode === 'seq-mean-token-mean') perSeq = tf.div(perSeq, tf.maximum(tokensPerSeq, 1));
    if (mode === 'seq-mean-token-sum-norm') perSeq = tf.div(perSeq, options.normLength ?? (lossMat.shape[1] as number));
    const seqs = options.globalSeqs !== undefined ? Math.max(options.globalSeqs, 1) : tf.maximum(tf.sum(tf.cast(tf.greater(tokensPerSeq, 0), 'float32')), 1);
    return tf.div(tf.sum(perSeq), seqs) as tf.Scalar;
  });
}

/** Mean of x over generated tokens; 0 when there are none. For metrics. */
export function maskedMeanTensor(x: tf.Tensor, mask: tf.Tensor): tf.Scalar {
  return tf.tidy(() => tf.div(tf.sum(tf.mul(x, mask)), tf.maximum(tf.sum(mask), 1)) as tf.Scalar);
}

function sameShape(a: tf.Tensor, b: tf.Tensor): boolean {
  return a.shape.length === b.shape.length && a.shape.every((d, i) => d === b.shape[i]);
}

function checkShapes(fn: string, named: Record<string, tf.Tensor>): void {
  const entries = Object.entries(named);
  const [firstName, first] = entries[0];
  if (first.rank !== 2) throw new RangeError(`${fn}: ${firstName} must be [B, T], got [${first.shape}]`);
  for (const [name, t] of entries.slice(1)) {
    if (!sameShape(first, t)) throw new RangeError(`${fn}: ${name} has shape [${t.shape}] but ${firstName} has [${first.shape}]`);
  }
}

export interface PolicyLossInput {
  /** Log-probs of the taken tokens under the current policy (the differentiable input). */
  logp: tf.Tensor;
  /** Log-probs under the policy that generated the rollout. */
  oldLogp: tf.Tensor;
  advantages: tf.Tensor;
  mask: tf.Tensor;
  /** Lower clip epsilon: ratio floor 1 - clipLow. Default 0.2. */
  clipLow?: number;
  /** Upper clip epsilon: ratio ceiling 1 + clipHigh (clip-higher uses 0.28). Default 0.2. */
  clipHigh?: number;
  /** Dual-clip constant c > 1 bounding the loss of negative-advantage tokens at -A * c. Default 3. */
  clipRatioC?: number;
  aggMode?: LossAggMode;
  aggOptions?: AggOptions;
}

export type PolicyLossResult = {
  loss: tf.Scalar;
  /** Share of generated tokens where the ratio clip was active (pg_clipfrac). */
  clipfrac: tf.Scalar;
  /** Share where the dual clip was active (pg_clipfrac_lower). */
  clipfracLower: tf.Scalar;
  /** Masked mean of oldLogp - logp (ppo_kl). */
  ppoKl: tf.Scalar;
};

/** PPO clipped surrogate with separate low/high clip and dual clip (verl `compute_policy_loss`). */
export function policyLoss(input: PolicyLossInput): PolicyLossResult {
  const { logp, oldLogp, advantages, mask, clipLow = 0.2, clipHigh = 0.2, clipRatioC = 3, aggMode = 'token-mean', aggOptions } = input;
  checkShapes('policyLoss', { logp, oldLogp, advantages, mask });
  if (!(clipLow >= 0 && clipLow < 1)) throw new RangeError(`clip_ratio_low must be in [0, 1), got ${clipLow}`);
  if (!(clipHigh >= 0 && Number.isFinite(clipHigh))) throw new RangeError(`clip_ratio_high must be >= 0, got ${clipHigh}`);
  if (!(clipRatioC > 1)) throw new RangeError(`clip_ratio_c (dual clip) must be greater than 1, got ${clipRatioC}`);
  return tf.tidy(() => {
    const logRatio = tf.clipByValue(tf.sub(logp, oldLogp), -20, 20);
    const ratio = tf.exp(logRatio);
    const ppoKl = maskedMeanTensor(tf.neg(logRatio), mask);
    const negAdv = tf.neg(advantages);
    const unclipped = tf.mul(negAdv, ratio);
    const clipped = tf.mul(negAdv, tf.clipByValue(ratio, 1 - clipLow, 1 + clipHigh));
    const ppoLoss = tf.maximum(unclipped, clipped);
    const clipfrac = maskedMeanTensor(tf.cast(tf.greater(clipped, unclipped), 'float32'), mask);
    const dualBound = tf.mul(negAdv, clipRatioC);
    const negative = tf.less(advantages, 0);
    const clipfracLower = maskedMeanTensor(tf.cast(tf.logicalAnd(tf.greater(ppoLoss, dualBound), negative), 'float32'), mask);
    const perToken = tf.where(negative, tf.minimum(ppoLoss, dualBound), ppoLoss);
    const loss = aggLoss(perToken, mask, aggMode, aggOptions);
    return { loss, clipfrac, clipfracLower, ppoKl };
  });
}

export interface ValueLossInput {
  /** Current critic predictions (the differentiable input). */
  values: tf.Tensor;
  /** Critic predictions at rollout time. */
  oldValues: tf.Tensor;
  returns: tf.Tensor;
  mask: tf.Tensor;
  /** cliprange_value. Default 0.5. */
  cliprange?: number;
  aggMode?: LossAggMode;
  aggOptions?: AggOptions;
}

export type ValueLossResult = {
  loss: tf.Scalar;
  /** Share of generated tokens where the clipped error was the larger one (vf_clipfrac). */
  clipfrac: tf.Scalar;
};

/** 0.5 * agg(max((v - R)^2, (clip(v, v_old - eps, v_old + eps) - R)^2)) (verl `compute_value_loss`). */
export function valueLoss(input: ValueLossInput): ValueLossResult {
  const { values, oldValues, returns, mask, cliprange = 0.5, aggMode = 'token-mean', aggOptions } = input;
  checkShapes('valueLoss', { values, oldValues, returns, mask });
  if (!(cliprange >= 0)) throw new RangeError(`cliprange_value must be >= 0, got ${cliprange}`);
  return tf.tidy(() => {
    const clippedValues = tf.minimum(tf.maximum(values, tf.sub(oldValues, cliprange)), tf.add(oldValues, cliprange));
    const plain = tf.square(tf.sub(values, returns));
    const clipped = tf.square(tf.sub(clippedValues, returns));
    const loss = tf.mul(aggLoss(tf.maximum(plain, clipped), mask, aggMode, aggOptions), 0.5) as tf.Scalar;
    const clipfrac = maskedMeanTensor(tf.cast(tf.greater(clipped, plain), 'float32'), mask);
    return { loss, clipfrac };
  });
}

/** Entropy of each softmax distribution along the last axis: logsumexp(z) - sum(softmax(z) * z). */
export function entropyFromLogits(logits: tf.Tensor): tf.Tensor {
  return tf.tidy(() => tf.sub(tf.logSumExp(logits, -1), tf.sum(tf.mul(tf.softmax(logits), logits), -1)));
}

/** Per-token KL estimates as a tensor; the same formulas (and clamps) as klEstimate in kl.ts. */
export function klPerToken(logp: tf.Tensor, refLogp: tf.Tensor, type: KlType): tf.Tensor {
  parseKlType(type);
  return tf.tidy(() => {
    const d = tf.sub(logp, refLogp);
    switch (klFamily(type)) {
      case 'k1':
        return d;
      case 'abs':
        return tf.abs(d);
      case 'k2':
        return tf.mul(tf.square(d), 0.5);
      case 'k3': {
        const c = tf.clipByValue(d, -20, 20);
        return tf.clipByValue(tf.sub(tf.add(tf.exp(tf.neg(c)), c), 1), -10, 10);
      }
    }
  });
}

export interface KlLossInput {
  logp: tf.Tensor;
  refLogp: tf.Tensor;
  mask: tf.Tensor;
  /** verl `kl_loss_type`, default 'low_var_kl'. */
  type?: KlType;
  aggMode?: LossAggMode;
  aggOptions?: AggOptions;
}

/** KL to the reference as a loss term (verl `use_kl_loss`); multiply by kl_loss_coef outside. */
export function klLoss(input: KlLossInput): tf.Scalar {
  const { logp, refLogp, mask, type = 'low_var_kl', aggMode = 'token-mean', aggOptions } = input;
  checkShapes('klLoss', { logp, refLogp, mask });
  return tf.tidy(() => aggLoss(klPerToken(logp, refLogp, type), mask, aggMode, aggOptions));
}

/** Reads scalar metrics into plain numbers and disposes them. Call outside gradient functions. */
export function readScalars<K extends string>(scalars: Record<K, tf.Scalar>): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const key of Object.keys(scalars) as K[]) {
    out[key] = scalars[key].dataSync()[0];
    scalars[key].dispose();
  }
  return out;
}
