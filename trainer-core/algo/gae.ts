import { checkGridArray, checkGridSize, checkMask, checkRewardsOnGeneratedTokens } from './grid';
import type { AdvantageResult, RewardBatch } from './types';
import { maskedWhiten } from './whiten';

export interface GaeInput extends RewardBatch {
  values: Float32Array;
  /** Discount per generated token. verl default 1. */
  gamma?: number;
  /** GAE lambda. verl default 1. */
  lambda?: number;
  /** Whiten the advantages over the mask (verl always does). Default true. */
  whiten?: boolean;
}

export function checkDiscount(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new RangeError(`${name} must be a number in [0, 1], got ${value}`);
  }
}

/**
 * Generalised advantage estimation over generated tokens only: the recursion runs backwards
 * through masked positions and jumps over unmasked ones (observation tokens between turns,
 * padding), so "next" always means the next token the policy generated. Returns R = A + V
 * before whitening; advantages are whitened afterwards.
 */
export function computeGae(input: GaeInput): AdvantageResult {
  const { rewards, values, mask, rows, cols, gamma = 1, lambda = 1, whiten = true } = input;
  checkGridSize(input);
  checkMask(mask, input);
  checkGridArray('values', values, input);
  checkRewardsOnGeneratedTokens(rewards, mask, input);
  checkDiscount('gamma', gamma);
  checkDiscount('lambda', lambda);

  const advantages = new Float32Array(rows * cols);
  const returns = new Float32Array(rows * cols);
  for (let b = 0; b < rows; b++) {
    let nextValue = 0;
    let lastGae = 0;
    for (let t = cols - 1; t >= 0; t--) {
      const i = b * cols + t;
      if (mask[i] === 0) continue;
      const delta = rewards[i] + gamma * nextValue - values[i];
      lastGae = delta + gamma * lambda * lastGae;
      advantages[i] = lastGae;
      returns[i] = lastGae + values[i];
      nextValue = values[i];
    }
  }
  return { advantages: whiten ? maskedWhiten(advantages, mask) : advantages, returns };
}
