import type { AdvantageResult, GroupId, RewardBatch } from './types';

/**
 * What an advantage estimator is, as the registry (estimator-registry.ts) knows it: a name, the
 * batch inputs it reads beyond rewards and mask, and a pure function computing advantages and
 * returns. Whether it needs a critic or groups follows from what it reads, so the two can never
 * disagree with the function (verl registers its estimators by name the same way).
 */

/** The inputs a rollout batch can offer an estimator, besides rewards and the generation mask. */
export interface AdvantageInputs {
  /** Critic values per token; reading them makes the run train a critic. */
  values: Float32Array;
  /** Per sequence, the positions of each turn's last generated token, ascending (from the rollout). */
  turnEnds: ReadonlyArray<ReadonlyArray<number>>;
  /** Per sequence, its group (episodes from one initial state); reading them makes the rollout group episodes. */
  groupIds: ReadonlyArray<GroupId>;
  /** Per sequence, one key per turn naming the state the turn was played from (its observation). */
  stateKeys: ReadonlyArray<ReadonlyArray<string>>;
}
export type AdvantageInput = keyof AdvantageInputs;

/** How each input is named in an error when an estimator needs it and the batch lacks it. */
export const ADVANTAGE_INPUT_TEXT: Record<AdvantageInput, string> = {
  values: 'critic values (one per token)',
  turnEnds: "turnEnds (each turn's last generated token per sequence) from the rollout",
  groupIds: 'groupIds (one group per sequence)',
  stateKeys: "stateKeys (each turn's state) from the rollout",
};

/** A batch as the trainer hands it to the registry: every input it has. */
export type AdvantageBatch = RewardBatch & Partial<AdvantageInputs>;

/**
 * The run config's `algorithm` section as estimators read it (same names, so the trainer passes
 * the section as it is). An estimator that needs a setting of its own adds the key here and to
 * the config schema.
 */
export interface EstimatorSettings {
  /** Discount per generated token (per turn for GiGPO's step returns). */
  gamma: number;
  /** GAE lambda. */
  lam: number;
  /** RAGEN's bi-level GAE; only `gae` reads it (the config check refuses it with another estimator). */
  bi_level_gae: boolean;
  /** RAGEN's turn-level discount of bi-level GAE. */
  high_level_gamma: number;
  /** verl's `norm_adv_by_std_in_grpo`. */
  norm_adv_by_std_in_grpo: boolean;
  gigpo: { step_advantage_w: number; episode_advantage_w: number; mode: 'mean_std_norm' | 'mean_norm' };
}

export interface AdvantageEstimator<I extends AdvantageInput = AdvantageInput> {
  /** The value of `algorithm.adv_estimator` that picks it. */
  readonly name: string;
  /** One line for listings and forms. */
  readonly description: string;
  /** The inputs it cannot do without; the registry checks the batch has them before calling compute. */
  readonly reads: readonly I[];
  /**
   * Its returns are judged turn by turn (GiGPO's step returns, verl-agent's per-step rewards), so
   * the rollout puts each turn's reward on that turn's last token, as `agent_proxy.use_turn_scores`
   * does: lumped on the episode's end, two turns played from one state would differ only by their
   * distance from it, and an invalid reply early on would look better than a valid move later.
   */
  readonly rewardsPerTurn?: boolean;
  /**
   * The `algorithm` settings its compute reads. A run that sets one it does not read is told so
   * as it starts (trainer-core/train/algorithm-notes.ts); left out, nothing is said.
   */
  readonly settings?: readonly (keyof EstimatorSettings)[];
  compute(batch: RewardBatch & Pick<AdvantageInputs, I> & Partial<AdvantageInputs>, settings: EstimatorSettings): AdvantageResult;
}

/** Declares an estimator, typing `compute`'s batch by what `reads` lists. */
export function defineEstimator<I extends AdvantageInput>(estimator: AdvantageEstimator<I>): AdvantageEstimator<I> {
  return estimator;
}
