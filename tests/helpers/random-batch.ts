import type { LossAggMode } from '../../trainer-core/algo/losses';
import type { Rng } from '../../trainer-core/rng';
import type { ActorUpdateSettings } from '../../trainer-core/train/ppo-update';
import type { TrainingBatch } from '../../trainer-core/train/batch';

/** Rows of very different lengths (as episodes of 1 to 5 turns are), with some prompt tokens masked out. */
export function randomBatch(rng: Rng, rows: number): TrainingBatch {
  const tokens = Array.from({ length: rows }, () => Array.from({ length: 3 + rng.int(20) }, () => 2 + rng.int(28)));
  const cols = Math.max(...tokens.map((t) => t.length));
  const mask = new Float32Array(rows * cols);
  const oldLogprobs = new Float32Array(rows * cols);
  tokens.forEach((row, b) => {
    for (let t = 2; t < row.length; t++) {
      mask[b * cols + t] = rng.next() < 0.7 ? 1 : 0;
      oldLogprobs[b * cols + t] = mask[b * cols + t] * (-3.4 + rng.next() * 0.2);
    }
  });
  return {
    rows,
    cols,
    tokens,
    mask,
    rewards: new Float32Array(rows * cols),
    oldLogprobs,
    turnEnds: tokens.map((t) => [t.length - 1]),
    stateKeys: tokens.map(() => ['']),
    documents: tokens.map((t) => t.map(() => 0)),
    groupIds: tokens.map((_, b) => b),
    episodes: [],
  };
}

/** Two PPO epochs of 6-row mini-batches in micro-batches of 2, on batches like randomBatch's. */
export function testActorSettings(aggMode: LossAggMode = 'token-mean'): ActorUpdateSettings {
  return {
    miniBatchSize: 6,
    microBatchSize: 2,
    epochs: 2,
    normLength: 64,
    clipLow: 0.2,
    clipHigh: 0.28,
    clipRatioC: 3,
    aggMode,
    entropyCoeff: 0.01,
    temperature: 1,
    gradClip: 1,
    klLoss: null,
  };
}
