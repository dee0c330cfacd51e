/**
 * Keys an evaluation does not read: it plays a checkpoint's policy on validation episodes, so the
 * update's settings and the training rollouts' change nothing. `turnlab eval <run> <overrides>`
 * says so for each, rather than a user comparing two evaluations that differ in a key that did
 * nothing; the train split's sampling keys point to the validation ones.
 */
import { formatPath } from './errors';
import { parseOverride } from './overrides';

const TRAINING_ONLY: ReadonlyArray<readonly [string, string]> = [
  ['actor_rollout_ref.rollout.temperature', 'validation samples with `actor_rollout_ref.rollout.val_kwargs.temperature`'],
  ['actor_rollout_ref.rollout.top_p', 'validation samples with `actor_rollout_ref.rollout.val_kwargs.top_p`'],
  ['actor_rollout_ref.rollout.top_k', 'validation samples with `actor_rollout_ref.rollout.val_kwargs.top_k`'],
  ['es_manager.train.', 'an evaluation plays the validation split, `es_manager.val` (and --episodes, --seed)'],
  ['algorithm.', 'it sets how the policy is updated'],
  ['actor_rollout_ref.actor.', 'it sets how the policy is updated'],
  ['critic.', 'it sets how the critic is updated'],
  ['ppo_mini_batch_size', 'it sets how the policy is updated'],
  ['micro_batch_size_per_gpu', 'it sets how the policy is updated'],
  ['rollout_filter_', 'it filters training rollouts'],
  ['warm_start.', 'it sets the warm start before training'],
  ['expert_iteration.', 'it sets the expert iteration before training'],
  ['trainer.total_training_steps', 'it sets how long a run trains'],
  ['trainer.save_freq', 'it sets when a run saves'],
  ['trainer.test_freq', "it sets when a run's own validation runs"],
  ['trainer.val_before_train', "it sets when a run's own validation runs"],
  ['trainer.keep_last_n', 'it sets which checkpoints a run keeps'],
];

/** A `note:` line for each override an evaluation does not read. */
export function evaluationOverrideNotes(overrides: readonly string[]): string[] {
  return overrides.flatMap((written) => {
    const key = formatPath(parseOverride(written).path);
    const match = TRAINING_ONLY.find(([name]) => (name.endsWith('.') || name.endsWith('_') ? key.startsWith(name) : key === name));
    return match ? [`note: ${key} changes nothing in an evaluation: ${match[1]}`] : [];
  });
}
