import type { TokenGrid } from './grid';

/** Per-token advantages and returns (value targets), same layout as the inputs; 0 off the mask. */
export interface AdvantageResult {
  advantages: Float32Array;
  returns: Float32Array;
}

/** Token rewards and the generation mask of a batch: what every estimator reads. */
export interface RewardBatch extends TokenGrid {
  rewards: Float32Array;
  mask: Float32Array;
}

/** Group key per sequence (prompt / initial-state group), for estimators that compare within groups. */
export type GroupId = string | number;
