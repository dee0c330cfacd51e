import type { KlType } from '../algo/kl';
import type { RunConfig } from '../config/schema';
import type { ActorUpdateSettings, CriticUpdateSettings } from './ppo-update';

/**
 * The actor's and the critic's update settings, read from the run config. Each role has its own
 * keys (verl's layout): the critic aggregates its value loss by `critic.loss_agg_mode`, which
 * follows the actor's through `${}` unless set.
 */

/**
 * The constant that `seq-mean-token-sum-norm` divides each episode's token sum by (Dr.GRPO's
 * max length, verl's `loss_scale_factor`): the configured value, else the most tokens an episode
 * can generate (`response_length` per turn times `max_turn`). A constant, unlike the batch's
 * widest row, so the weight of a token does not change with what else is in the batch.
 */
export function lossNormLength(cfg: RunConfig): number {
  return cfg.actor_rollout_ref.actor.loss_scale_factor ?? cfg.actor_rollout_ref.rollout.response_length * cfg.agent_proxy.max_turn;
}

/**
 * Whether the updates recompute each layer's activations in the backward pass: the configured
 * value, else on for a pretrained model (hundreds of tokens per row through a wide MLP and many
 * layers) and off for TurnLab's own small model, where it would only cost time.
 */
export function gradientCheckpointing(cfg: RunConfig): boolean {
  const m = cfg.actor_rollout_ref.model;
  return m.enable_gradient_checkpointing ?? m.path !== null;
}

export function actorUpdateSettings(
  cfg: RunConfig,
  temperature: number,
  refLogprobs: Float32Array | null,
  auxReturns: Float32Array | null = null,
): ActorUpdateSettings {
  const actor = cfg.actor_rollout_ref.actor;
  return {
    miniBatchSize: actor.ppo_mini_batch_size,
    microBatchSize: actor.ppo_micro_batch_size_per_gpu,
    epochs: actor.ppo_epochs,
    clipLow: actor.clip_ratio_low,
    clipHigh: actor.clip_ratio_high,
    clipRatioC: actor.clip_ratio_c,
    aggMode: actor.loss_agg_mode,
    normLength: lossNormLength(cfg),
    entropyCoeff: actor.entropy_coeff,
    temperature,
    gradClip: actor.grad_clip,
    klLoss: actor.use_kl_loss && refLogprobs ? { coef: actor.kl_loss_coef, type: actor.kl_loss_type as KlType, refLogprobs } : null,
    auxValue: actor.aux_value_coef > 0 && auxReturns ? { coef: actor.aux_value_coef, returns: auxReturns } : null,
    checkpointLayers: gradientCheckpointing(cfg),
  };
}

export function criticUpdateSettings(cfg: RunConfig): CriticUpdateSettings {
  const critic = cfg.critic;
  return {
    miniBatchSize: critic.ppo_mini_batch_size,
    microBatchSize: critic.ppo_micro_batch_size_per_gpu,
    epochs: critic.ppo_epochs,
    cliprange: critic.cliprange_value,
    aggMode: critic.loss_agg_mode,
    normLength: lossNormLength(cfg),
    gradClip: critic.grad_clip,
    checkpointLayers: gradientCheckpointing(cfg),
  };
}
