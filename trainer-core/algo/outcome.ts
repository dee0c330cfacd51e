import { checkGridArray, checkGridSize, checkMask } from './grid';
import type { GroupId, RewardBatch } from './types';

/** Input of the outcome estimators (GRPO, RLOO, REINFORCE++-baseline). */
export interface OutcomeInput extends RewardBatch {
  /** One group key per sequence: sequences sharing a prompt / initial state share a key. */
  groupIds: ReadonlyArray<GroupId>;
}

export function checkOutcomeInput(input: OutcomeInput): void {
  checkGridSize(input);
  checkMask(input.mask, input);
  checkGridArray('rewards', input.rewards, input);
  if (input.groupIds.length !== input.rows) {
    throw new RangeError(`groupIds has ${input.groupIds.length} entries but the batch has ${input.rows} sequences; give one group id per sequence`);
  }
  for (let i = 0; i < input.rewards.length; i++) {
    if (!Number.isFinite(input.rewards[i])) throw new RangeError(`rewards must be finite, found ${input.rewards[i]} at index ${i}`);
  }
}

/** Each sequence's score: the sum of its token rewards. */
export function sequenceScores(rewards: ArrayLike<number>, rows: number, cols: number): Float64Array {
  const scores = new Float64Array(rows);
  for (let b = 0; b < rows; b++) {
    let sum = 0;
    for (let t = 0; t < cols; t++) sum += rewards[b * cols + t];
    scores[b] = sum;
  }
  return scores;
}

/** Sequence indices per group, in first-seen order. */
export function groupMembers(groupIds: ReadonlyArray<GroupId>): Map<GroupId, number[]> {
  const groups = new Map<GroupId, number[]>();
  groupIds.forEach((id, b) => {
    const members = groups.get(id);
    if (members) members.push(b);
    else groups.set(id, [b]);
  });
  return groups;
}

export function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Unbiased standard deviation (n - 1), as torch.std; needs at least two values. */
export function unbiasedStd(xs: readonly number[]): number {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) * (x - m), 0) / (xs.length - 1));
}

/**
 * Values relative to their group (GRPO): (x - mean) / (std + epsilon) with the unbiased std, or
 * x - mean without the std. A group of one has no peers, so verl gives it mean 0 and std 1.
 */
export function normaliseWithinGroup(xs: readonly number[], normByStd: boolean, epsilon: number): number[] {
  const m = xs.length > 1 ? mean(xs) : 0;
  const s = xs.length > 1 ? unbiasedStd(xs) : 1;
  return xs.map((x) => (normByStd ? (x - m) / (s + epsilon) : x - m));
}

/** Spreads one scalar per sequence over that sequence's generated tokens. */
export function broadcastOverMask(perSequence: ArrayLike<number>, mask: ArrayLike<number>, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let b = 0; b < rows; b++) {
    for (let t = 0; t < cols; t++) {
      const i = b * cols + t;
      out[i] = perSequence[b] * mask[i];
    }
  }
  return out;
}
