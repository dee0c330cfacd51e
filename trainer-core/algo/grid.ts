/**
 * The data layout every algorithm here shares: a batch of `rows` sequences of `cols` tokens,
 * each per-token quantity flattened row-major into one Float32Array of length rows * cols
 * (entry of sequence b, position t at index b * cols + t). `mask` is 1 on tokens the policy
 * generated and 0 on prompt, observation and padding tokens.
 */
export interface TokenGrid {
  rows: number;
  cols: number;
}

export function checkGridSize({ rows, cols }: TokenGrid): void {
  if (!Number.isInteger(rows) || rows < 0 || !Number.isInteger(cols) || cols < 0) {
    throw new RangeError(`batch shape must be two non-negative integers, got rows=${rows} cols=${cols}`);
  }
}

export function checkGridArray(name: string, data: ArrayLike<number>, grid: TokenGrid): void {
  const expected = grid.rows * grid.cols;
  if (data.length !== expected) {
    throw new RangeError(
      `${name} has ${data.length} entries but the batch is ${grid.rows} x ${grid.cols} = ${expected}; ` +
        'pass per-token arrays flattened row-major, one entry per token',
    );
  }
}

export function checkMask(mask: ArrayLike<number>, grid: TokenGrid): void {
  checkGridArray('mask', mask, grid);
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] !== 0 && mask[i] !== 1) {
      const [b, t] = rowCol(i, grid.cols);
      throw new RangeError(`mask must hold only 0 and 1, found ${mask[i]} at sequence ${b}, position ${t}`);
    }
  }
}

/**
 * Token-level estimators only ever read rewards on generated tokens, so a reward placed on a
 * prompt/observation token would be silently lost; that is a rollout bug worth stopping on.
 */
export function checkRewardsOnGeneratedTokens(rewards: ArrayLike<number>, mask: ArrayLike<number>, grid: TokenGrid): void {
  checkGridArray('rewards', rewards, grid);
  for (let i = 0; i < rewards.length; i++) {
    if (!Number.isFinite(rewards[i])) {
      const [b, t] = rowCol(i, grid.cols);
      throw new RangeError(`rewards must be finite, found ${rewards[i]} at sequence ${b}, position ${t}`);
    }
    if (rewards[i] !== 0 && mask[i] === 0) {
      const [b, t] = rowCol(i, grid.cols);
      throw new RangeError(
        `reward ${rewards[i]} at sequence ${b}, position ${t} sits on a token with mask 0; ` +
          "put each reward on a generated token (normally the turn's last generated token)",
      );
    }
  }
}

export function rowCol(index: number, cols: number): [number, number] {
  return [Math.floor(index / cols), index % cols];
}
