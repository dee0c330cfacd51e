import type { RewardBatch } from './types';

/**
 * Discounted return to go on every generated token, G_t = r_t + gamma * G_next, 0 off the mask.
 * The recursion jumps over mask-0 tokens (observations between turns), so a turn's return
 * includes the rewards of the turns after it; only the end of a row starts a fresh sum. verl
 * zeroes the running sum at every mask-0 token instead, which in a multi-turn row would cut each
 * turn off from what follows; for one turn (generated tokens, then padding) the two agree.
 */
export function returnsToGo({ rewards, mask, rows, cols }: RewardBatch, gamma: number): Float32Array {
  const returns = new Float32Array(rows * cols);
  for (let b = 0; b < rows; b++) {
    let running = 0;
    for (let t = cols - 1; t >= 0; t--) {
      const i = b * cols + t;
      if (mask[i] === 0) continue;
      running = rewards[i] + gamma * running;
      returns[i] = running;
    }
  }
  return returns;
}
