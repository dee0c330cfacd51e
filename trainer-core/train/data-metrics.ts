/**
 * verl's `compute_data_metrics` for one update's batch, under verl's names, so a dashboard or
 * script built on a verl run's metrics reads a TurnLab run's: each episode's score (the rewards
 * as the rollout placed them) and rewards (after the in-reward KL penalty), the advantages,
 * returns and critic values over the trained tokens with how much of the returns' variance the
 * values explain, the tokens an episode generated with the fraction of replies cut at
 * `response_length`, and the tokens it read (its row less what it generated: the prompts and
 * observations of a multi-turn episode, verl's prompt length) with the fraction of episodes the
 * context cut short. Besides verl's: each episode's shaping bonus (`algorithm.turn_shaping`), which
 * the score includes.
 */

interface Spread {
  mean: number;
  max: number;
  min: number;
}

function spread(values: readonly number[]): Spread {
  let sum = 0;
  let max = -Infinity;
  let min = Infinity;
  for (const v of values) {
    sum += v;
    if (v > max) max = v;
    if (v < min) min = v;
  }
  return { mean: sum / values.length, max, min };
}

function masked(x: Float32Array, mask: Float32Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < x.length; i++) if (mask[i] !== 0) out.push(x[i]);
  return out;
}

function rowSums(x: Float32Array, rows: number, cols: number): number[] {
  return Array.from({ length: rows }, (_, b) => {
    let sum = 0;
    for (let t = 0; t < cols; t++) sum += x[b * cols + t];
    return sum;
  });
}

/** Unbiased variance, as torch.var. */
function variance(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1);
}

/** verl's critic/vf_explained_var: 1 - var(returns - values) / (var(returns) + 1e-5), over the trained tokens. */
export function explainedVariance(returns: readonly number[], values: readonly number[]): number {
  return 1 - variance(returns.map((r, i) => r - values[i])) / (variance(returns) + 1e-5);
}

function named(prefix: string, s: Spread): Record<string, number> {
  return { [`${prefix}/mean`]: s.mean, [`${prefix}/max`]: s.max, [`${prefix}/min`]: s.min };
}

export interface DataMetricsInput {
  rows: number;
  cols: number;
  mask: Float32Array;
  /** Token rewards as the rollout placed them (verl's token_level_scores). */
  scores: Float32Array;
  /** Token rewards the estimator read (verl's token_level_rewards: the scores less any in-reward KL). */
  rewards: Float32Array;
  advantages: Float32Array;
  returns: Float32Array;
  /** The critic's values; null without a critic. */
  values: Float32Array | null;
  /** Of the batch's replies, how many hit the token limit. */
  replies: { total: number; cut: number };
  /** Each row's tokens (unpadded). */
  rowLengths: readonly number[];
  /** Of the batch's episodes, how many ended because the next prompt did not fit the context. */
  contextFull: number;
  /** Each episode's summed shaping bonus; null without shaping. */
  shaping: readonly number[] | null;
}

/** The metrics of a batch with at least one row and one trained token. */
export function dataMetrics(input: DataMetricsInput): Record<string, number> {
  const { rows, cols, mask } = input;
  const lengths = rowSums(mask, rows, cols);
  const returns = masked(input.returns, mask);
  const values = input.values ? masked(input.values, mask) : null;
  return {
    ...named('critic/score', spread(rowSums(input.scores, rows, cols))),
    ...named('critic/rewards', spread(rowSums(input.rewards, rows, cols))),
    ...named('critic/advantages', spread(masked(input.advantages, mask))),
    ...named('critic/returns', spread(returns)),
    ...(values ? { ...named('critic/values', spread(values)), 'critic/vf_explained_var': explainedVariance(returns, values) } : {}),
    ...(input.shaping ? named('critic/shaping', spread(input.shaping)) : {}),
    ...named('response_length', spread(lengths)),
    'response_length/clip_ratio': input.replies.total > 0 ? input.replies.cut / input.replies.total : 0,
    ...named('prompt_length', spread(input.rowLengths.map((n, b) => n - lengths[b]))),
    'prompt_length/clip_ratio': input.contextFull / rows,
  };
}
