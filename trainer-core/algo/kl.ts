import { checkGridArray, checkGridSize, checkMask } from './grid';

/** verl `kl_penalty` names; k1/k2/k3 are aliases of kl/mse/low_var_kl. */
export const KL_TYPES = ['kl', 'k1', 'abs', 'mse', 'k2', 'low_var_kl', 'k3'] as const;
export type KlType = (typeof KL_TYPES)[number];

export function parseKlType(name: string): KlType {
  if (!(KL_TYPES as readonly string[]).includes(name)) {
    throw new RangeError(`unknown KL estimator '${name}'; choose one of ${KL_TYPES.join(', ')}`);
  }
  return name as KlType;
}

/** The canonical family of a KL type name: 'k1' | 'abs' | 'k2' | 'k3'. */
export function klFamily(type: KlType): 'k1' | 'abs' | 'k2' | 'k3' {
  switch (type) {
    case 'kl':
    case 'k1':
      return 'k1';
    case 'abs':
      return 'abs';
    case 'mse':
    case 'k2':
      return 'k2';
    case 'low_var_kl':
    case 'k3':
      return 'k3';
    default:
      return parseKlType(type) as never;
  }
}

/**
 * One token's KL estimate between policy and reference from d = logp - refLogp:
 * k1 = d, abs = |d|, k2 = d^2 / 2, k3 = exp(-d) + d - 1 (d clamped to [-20, 20] before the exp,
 * the result to [-10, 10], as verl does so one wild token cannot dominate).
 */
export function klEstimate(logp: number, refLogp: number, type: KlType): number {
  const d = logp - refLogp;
  switch (klFamily(type)) {
    case 'k1':
      return d;
    case 'abs':
      return Math.abs(d);
    case 'k2':
      return 0.5 * d * d;
    case 'k3': {
      const c = Math.min(20, Math.max(-20, d));
      return Math.min(10, Math.max(-10, Math.exp(-c) + c - 1));
    }
  }
}

export interface KlPenaltyInput {
  rows: number;
  cols: number;
  /** Task scores per token (verl token_level_scores). */
  rewards: Float32Array;
  /** Log-probs of the sampled tokens under the rollout policy. */
  logp: Float32Array;
  refLogp: Float32Array;
  mask: Float32Array;
  /** KL coefficient (the controller's current value). */
  beta: number;
  type: KlType;
}

export interface KlPenaltyResult {
  rewards: Float32Array;
  /** Mean over sequences of each sequence's masked-mean KL: feeds the adaptive controller. */
  meanKl: number;
}

/** KL in the reward: r = score - beta * KL on generated tokens (verl `apply_kl_penalty`). */
export function applyKlPenalty(input: KlPenaltyInput): KlPenaltyResult {
  const { rows, cols, rewards, logp, refLogp, mask, beta, type } = input;
  checkGridSize(input);
  checkMask(mask, input);
  checkGridArray('rewards', rewards, input);
  checkGridArray('logp', logp, input);
  checkGridArray('refLogp', refLogp, input);
  if (!Number.isFinite(beta)) throw new RangeError(`KL coefficient must be finite, got ${beta}`);
  parseKlType(type);
  const out = new Float32Array(rewards);
  let klSum = 0;
  let counted = 0;
  for (let b = 0; b < rows; b++) {
    let rowKl = 0;
    let rowTokens = 0;
    for (let t = 0; t < cols; t++) {
      const i = b * cols + t;
      if (mask[i] === 0) continue;
      const kl = klEstimate(logp[i], refLogp[i], type);
      out[i] = rewards[i] - beta * kl;
      rowKl += kl;
      rowTokens++;
    }
    // A sequence with no generated tokens has no KL to report; averaging in a 0 would bias it.
    if (rowTokens > 0) {
      klSum += rowKl / rowTokens;
      counted++;
    }
  }
  return { rewards: out, meanKl: counted > 0 ? klSum / counted : 0 };
}

export interface KlUsage {
  /** verl `algorithm.use_kl_in_reward`. */
  useKlInReward?: boolean;
  /** The in-reward coefficient (kl_ctrl.kl_coef); a zero coefficient switches the term off. */
  klCoef?: number;
  /** verl `actor.use_kl_loss`. */
  useKlLoss?: boolean;
  klLossCoef?: number;
}

/**
 * A reference model is only loaded when some KL term is on: flagged and with a nonzero
 * coefficient (an adaptive controller starting at 0 stays at 0, so it is off too).
 */
export function needsReference(usage: KlUsage): boolean {
  const inReward = Boolean(usage.useKlInReward) && (usage.klCoef ?? 1) !== 0;
  const asLoss = Boolean(usage.useKlLoss) && (usage.klLossCoef ?? 1) !== 0;
  return inReward || asLoss;
}
