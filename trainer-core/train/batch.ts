import type { EpisodeRecord } from '../rollout/rollout-loop';

/**
 * The training batch: B episode sequences right-padded to T tokens, flattened row-major, as the
 * algorithms in algo/ take them. Row b is episode `episodes[b]`.
 */
export interface TrainingBatch {
  rows: number;
  cols: number;
  tokens: number[][];
  mask: Float32Array;
  rewards: Float32Array;
  /** Sampling logprobs, aligned with tokens (0 where mask is 0). */
  oldLogprobs: Float32Array;
  turnEnds: number[][];
  /**
   * Per row, the state each shown turn was played from as its prompt showed it (GiGPO's state
   * keys), aligned with turnEnds: the observation, and the actions left where the template states
   * them. Keyed on the board alone, a board seen again later in a failed episode would join a step
   * group whose returns differ only by the step penalties still to come, which the group's
   * std normalisation blows up to advantages of about 1 on every such turn.
   */
  stateKeys: string[][];
  /** Training document of each token, per row (several per row under a context window). */
  documents: number[][];
  groupIds: number[];
  episodes: EpisodeRecord[];
}

export function buildTrainingBatch(episodes: readonly EpisodeRecord[]): TrainingBatch {
  const kept = episodes.filter((e) => e.sequence.inputIds.length > 0 && e.sequence.turnEnds.length > 0);
  const rows = kept.length;
  const cols = Math.max(1, ...kept.map((e) => e.sequence.inputIds.length));
  const mask = new Float32Array(rows * cols);
  const rewards = new Float32Array(rows * cols);
  const oldLogprobs = new Float32Array(rows * cols);
  kept.forEach((episode, b) => {
    const s = episode.sequence;
    for (let t = 0; t < s.inputIds.length; t++) {
      mask[b * cols + t] = s.lossMask[t];
      rewards[b * cols + t] = s.tokenRewards[t];
      oldLogprobs[b * cols + t] = s.logprobs[t];
    }
  });
  return {
    rows,
    cols,
    tokens: kept.map((e) => e.sequence.inputIds),
    mask,
    rewards,
    oldLogprobs,
    turnEnds: kept.map((e) => e.sequence.turnEnds),
    stateKeys: kept.map((e) => {
      const states = new Map(e.turns.map((t) => [t.turn, t.stateShown]));
      return e.sequence.turnNumbers.map((turn) => states.get(turn) ?? '');
    }),
    documents: kept.map((e) => e.sequence.documentIds),
    groupIds: kept.map((e) => e.groupId),
    episodes: kept,
  };
}

/** Copies rows `rowIds` of a [rows, cols] array into a new [rowIds.length, width] array. */
export function sliceRows(data: Float32Array, cols: number, rowIds: readonly number[], width: number): Float32Array {
  const out = new Float32Array(rowIds.length * width);
  rowIds.forEach((row, i) => {
    out.set(data.subarray(row * cols, row * cols + Math.min(cols, width)), i * width);
  });
  return out;
}

/** Sets a [rows, cols] array from per-row values (e.g. scores of a forward pass of width `width`). */
export function scatterRows(target: Float32Array, cols: number, rowIds: readonly number[], values: Float32Array, width: number): void {
  rowIds.forEach((row, i) => {
    target.set(values.subarray(i * width, i * width + Math.min(cols, width)), row * cols);
  });
}
