import { checkGridArray, checkGridSize, checkMask } from './grid';
import type { RewardBatch } from './types';

export interface TokenCenteringInput extends Pick<RewardBatch, 'rows' | 'cols' | 'mask'> {
  advantages: Float32Array;
  /** Per row, the token ids aligned with the grid's columns (the token trained at each position). */
  tokens: ReadonlyArray<ReadonlyArray<number>>;
  /**
   * Weigh each token as the loss does when it averages each row's tokens first
   * (`loss_agg_mode: seq-mean-token-mean`: one over the row's trained tokens), so the sums that
   * come out zero are the ones the loss takes. Default false: every token weighs the same
   * (`token-mean`, and the token-sum modes, whose rows weigh alike).
   */
  perRowMean?: boolean;
  /**
   * Shrinks each token id's mean towards 0 as if the batch held this many more of its tokens
   * with advantage 0 (`algorithm.center_advantages_prior`): a token the batch saw only a few times,
   * a malformed reply's, keeps most of its own advantage, so the format penalty still pushes it
   * down, while the moves, seen hundreds of times a batch, stay centred. Default 0: plain means.
   */
  priorCount?: number;
}

/**
 * Each trained token's advantage minus the batch's mean advantage of the same token id
 * (`algorithm.center_advantages_by_token`). A policy whose reply barely depends on its input
 * (one trained from scratch to answer in the format with random moves plays the same move
 * distribution on every board) turns an advantage into a change of that distribution everywhere
 * at once: the sum of the advantages of all the times a move was played, a number the batch's
 * rooms decide by chance, moves the move's probability on every board, and Adam moves it at the
 * full rate however small that sum is. Centred per token, those sums are zero, so the update
 * keeps only what tells one input from another (a move good on some boards and bad on others).
 * A deliberate bias: a move that is better everywhere cannot gain on the others this way. Meant
 * for small action vocabularies (a move a reply); positions outside the mask stay 0.
 */
export function centerAdvantagesByToken(input: TokenCenteringInput): Float32Array {
  const { advantages, mask, rows, cols, tokens, perRowMean = false, priorCount = 0 } = input;
  if (!(priorCount >= 0)) throw new RangeError(`priorCount is ${priorCount}; give 0 or more`);
  checkGridSize(input);
  checkMask(mask, input);
  checkGridArray('advantages', advantages, input);
  if (tokens.length !== rows) throw new RangeError(`tokens has ${tokens.length} rows but the batch has ${rows}; give one token list per row`);
  const sums = new Map<number, [sum: number, weight: number, count: number]>();
  const idAt = (b: number, t: number): number => {
    const id = tokens[b][t];
    if (id === undefined) throw new RangeError(`row ${b} has no token at trained position ${t}; align tokens with the grid`);
    return id;
  };
  for (let b = 0; b < rows; b++) {
    let trained = 0;
    for (let t = 0; t < cols; t++) trained += mask[b * cols + t] === 0 ? 0 : 1;
    const w = perRowMean ? 1 / Math.max(trained, 1) : 1;
    for (let t = 0; t < cols; t++) {
      if (mask[b * cols + t] === 0) continue;
      const id = idAt(b, t);
      const entry = sums.get(id) ?? [0, 0, 0];
      entry[0] += w * advantages[b * cols + t];
      entry[1] += w;
      entry[2] += 1;
      sums.set(id, entry);
    }
  }
  const out = new Float32Array(advantages.length);
  for (let b = 0; b < rows; b++) {
    for (let t = 0; t < cols; t++) {
      const i = b * cols + t;
      if (mask[i] === 0) continue;
      const [sum, weight, count] = sums.get(idAt(b, t))!;
      out[i] = advantages[i] - (sum / weight) * (count / (count + priorCount));
    }
  }
  return out;
}
