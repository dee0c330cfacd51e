import { checkDiscount } from './gae';
import { checkGridArray, checkGridSize, checkMask, checkRewardsOnGeneratedTokens } from './grid';
import type { AdvantageResult, RewardBatch } from './types';
import { maskedWhiten } from './whiten';

export interface BiLevelGaeInput extends RewardBatch {
  values: Float32Array;
  /**
   * Per sequence, the positions of each turn's last generated token, ascending. These come from
   * the rollout, never from reward values: a turn scored exactly 0 is still a turn, and a KL
   * penalty folded into the rewards must not turn every token into a boundary.
   */
  turnEnds: ReadonlyArray<ReadonlyArray<number>>;
  /** Token-level discount inside a turn. Default 1. */
  gamma?: number;
  lambda?: number;
  /** Turn-level discount between turns (RAGEN `high_level_gamma`). Default 0.95. */
  highLevelGamma?: number;
  whiten?: boolean;
}

/** Checks that each sequence's turn ends are ascending positions of generated tokens. */
export function checkTurnEnds(input: RewardBatch & { turnEnds: ReadonlyArray<ReadonlyArray<number>> }): void {
  const { turnEnds, mask, rows, cols } = input;
  if (turnEnds.length !== rows) {
    throw new RangeError(`turnEnds has ${turnEnds.length} entries but the batch has ${rows} sequences; give one list per sequence`);
  }
  turnEnds.forEach((ends, b) => {
    let previous = -1;
    for (const p of ends) {
      if (!Number.isInteger(p) || p < 0 || p >= cols) {
        throw new RangeError(`turnEnds[${b}] holds ${p}, which is not a position in 0..${cols - 1}`);
      }
      if (p <= previous) throw new RangeError(`turnEnds[${b}] must be strictly ascending, got ${ends.join(', ')}`);
      if (mask[b * cols + p] !== 1) {
        throw new RangeError(`turnEnds[${b}] marks position ${p}, which is not a generated token (mask 0); mark each turn's last generated token`);
      }
      previous = p;
    }
  });
}

/**
 * RAGEN's bi-level GAE with boundaries taken from the rollout. Turn level: GAE across turns with
 * highLevelGamma, bootstrapping from the value at the next turn's end; each turn-end reward is
 * then replaced by that turn's return. Token level: GAE with gamma inside each turn, restarting at
 * every turn end (whose target is now the turn return).
 */
export function computeBiLevelGae(input: BiLevelGaeInput): AdvantageResult {
  const { rewards, values, mask, rows, cols, turnEnds } = input;
  const { gamma = 1, lambda = 1, highLevelGamma = 0.95, whiten = true } = input;
  checkGridSize(input);
  checkMask(mask, input);
  checkGridArray('values', values, input);
  checkRewardsOnGeneratedTokens(rewards, mask, input);
  checkDiscount('gamma', gamma);
  checkDiscount('lambda', lambda);
  checkDiscount('highLevelGamma', highLevelGamma);
  checkTurnEnds(input);

  const advantages = new Float32Array(rows * cols);
  const returns = new Float32Array(rows * cols);
  const rowRewards = new Float64Array(cols);
  for (let b = 0; b < rows; b++) {
    const base = b * cols;
    const ends = turnEnds[b];
    for (let t = 0; t < cols; t++) rowRewards[t] = rewards[base + t];

    const turnAdvantage = new Float64Array(ends.length);
    let g = 0;
    for (let k = ends.length - 1; k >= 0; k--) {
      const p = base + ends[k];
      const nextValue = k < ends.length - 1 ? values[base + ends[k + 1]] : 0;
      const delta = rewards[p] + highLevelGamma * nextValue - values[p];
      g = delta + highLevelGamma * lambda * g;
      turnAdvantage[k] = g;
    }
    ends.forEach((p, k) => {
      rowRewards[p] = turnAdvantage[k] + values[base + p];
    });

    const isEnd = new Set(ends);
    let nextValue = 0;
    g = 0;
    for (let t = cols - 1; t >= 0; t--) {
      const i = base + t;
      if (mask[i] === 0) continue;
      const bootstrap = isEnd.has(t) ? 0 : nextValue;
      if (isEnd.has(t)) g = 0;
      const delta = rowRewards[t] + gamma * bootstrap - values[i];
      g = delta + gamma * lambda * g;
      advantages[i] = g;
      returns[i] = g + values[i];
      nextValue = values[i];
    }
  }
  return { advantages: whiten ? maskedWhiten(advantages, mask) : advantages, returns };
}
