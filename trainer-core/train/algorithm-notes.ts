import type { RunConfig } from '../config/schema';
import { differsFromDefault } from '../config/defaults';
import { estimatorNamed, estimatorNames, needsGroups } from '../algo/estimator-registry';
import type { EstimatorSettings } from '../algo/estimator';
import { modelRoles } from './models';

/**
 * Algorithm settings a run sets where nothing reads them (the chosen estimator, loss, critic or
 * schedule), and settings verl warns about. A RAGEN or verl command pasted whole carries keys of
 * another estimator or schedule; each is said once as the run starts, so the researcher learns
 * what runs instead of comparing runs that differ only on paper.
 */
export function algorithmNotes(cfg: RunConfig): string[] {
  return [...estimatorNotes(cfg), ...criticNotes(cfg), ...lossNotes(cfg), ...scheduleNotes(cfg), ...validationNotes(cfg), ...warmStartBatchNotes(cfg)];
}

const isSet = (cfg: RunConfig, path: string) => differsFromDefault(cfg, path);
const listed = (keys: string[]) => `${keys.join(' and ')} ${keys.length > 1 ? 'are' : 'is'} set`;
const them = (keys: string[]) => (keys.length > 1 ? 'them' : 'it');

/** The registered estimators that declare they read `setting`. */
function readersOf(setting: keyof EstimatorSettings): string[] {
  return estimatorNames().filter((name) => estimatorNamed(name).settings?.includes(setting));
}

function estimatorNotes(cfg: RunConfig): string[] {
  const notes: string[] = [];
  const a = cfg.algorithm;
  const estimator = a.adv_estimator;
  const unread = (keys: string[], reader: string) => {
    const set = keys.filter((key) => isSet(cfg, key));
    if (set.length > 0) notes.push(`${listed(set)}, but only ${reader} reads ${them(set)} (algorithm.adv_estimator is ${estimator})`);
  };
  if (estimator !== 'gigpo') unread(['algorithm.gigpo.step_advantage_w', 'algorithm.gigpo.episode_advantage_w', 'algorithm.gigpo.mode'], 'adv_estimator: gigpo');
  if (estimator !== 'grpo' && !a.norm_adv_by_std_in_grpo) {
    const gigpo = estimator === 'gigpo' && a.gigpo.mode === 'mean_std_norm' ? '; GiGPO divides by the std unless algorithm.gigpo.mode=mean_norm' : '';
    notes.push(`algorithm.norm_adv_by_std_in_grpo is false, but only adv_estimator: grpo reads it (algorithm.adv_estimator is ${estimator})${gigpo}`);
  }
  if (!(estimator === 'gae' && a.bi_level_gae)) unread(['algorithm.high_level_gamma'], 'bi-level GAE (adv_estimator: gae with bi_level_gae: true)');
  // The discounts, by what each estimator declares it reads (a custom one that declares nothing is not judged).
  const declared = estimatorNamed(estimator).settings;
  for (const setting of ['gamma', 'lam'] as const) {
    const readByAux = setting === 'gamma' && cfg.actor_rollout_ref.actor.aux_value_coef > 0;
    if (declared === undefined || declared.includes(setting) || readByAux) continue;
    const readers = readersOf(setting);
    unread([`algorithm.${setting}`], `adv_estimator: ${readers.join(', ').replace(/, ([^,]*)$/, ' or $1')}`);
  }
  if (needsGroups(estimator) && cfg.es_manager.train.group_size === 1) {
    notes.push(
      `es_manager.train.group_size is 1, so ${estimator} has no group to compare an episode with: as in verl a group of one has mean 0 (and std 1), ` +
        "so each advantage is the episode's own reward, with no baseline; a group_size of 2 or more gives one",
    );
  }
  return notes;
}

/** Every leaf key under `section` (dotted), arrays as leaves. */
function leafKeys(value: unknown, section: string): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [section];
  return Object.entries(value).flatMap(([key, inner]) => leafKeys(inner, `${section}.${key}`));
}

function criticNotes(cfg: RunConfig): string[] {
  if (modelRoles(cfg).critic) return [];
  const set = leafKeys(cfg.critic, 'critic').filter((key) => isSet(cfg, key));
  if (set.length === 0) return [];
  const trainers = estimatorNames().filter((name) => estimatorNamed(name).reads.includes('values'));
  return [`${listed(set)}, but adv_estimator: ${cfg.algorithm.adv_estimator} trains no critic (only ${trainers.join(', ')} does), so nothing reads ${them(set)}`];
}

function lossNotes(cfg: RunConfig): string[] {
  const notes: string[] = [];
  const a = cfg.algorithm;
  const actor = cfg.actor_rollout_ref.actor;
  if (!a.use_kl_in_reward) {
    const set = ['algorithm.kl_penalty', 'algorithm.kl_ctrl.type', 'algorithm.kl_ctrl.kl_coef', 'algorithm.kl_ctrl.horizon', 'algorithm.kl_ctrl.target_kl'].filter((key) => isSet(cfg, key));
    if (set.length > 0) notes.push(`${set.join(', ')} ${set.length > 1 ? 'are' : 'is'} set, but only the KL penalty in the reward reads ${them(set)}, and algorithm.use_kl_in_reward is false`);
  } else if (actor.use_kl_loss) {
    notes.push('algorithm.use_kl_in_reward and actor_rollout_ref.actor.use_kl_loss are both on, so the KL to the reference is counted twice (verl warns of the same); keep one');
  }
  if (!actor.use_kl_loss) {
    const set = ['actor_rollout_ref.actor.kl_loss_coef', 'actor_rollout_ref.actor.kl_loss_type'].filter((key) => isSet(cfg, key));
    if (set.length > 0) notes.push(`${listed(set)}, but actor_rollout_ref.actor.use_kl_loss is false, so there is no KL loss; set use_kl_loss=true for one (RAGEN's configs set both)`);
  }
  if (actor.loss_agg_mode !== 'seq-mean-token-sum-norm' && isSet(cfg, 'actor_rollout_ref.actor.loss_scale_factor')) {
    notes.push(`actor_rollout_ref.actor.loss_scale_factor is set, but only loss_agg_mode: seq-mean-token-sum-norm reads it (it is ${actor.loss_agg_mode})`);
  }
  if (actor.entropy_coeff < 0) {
    notes.push(
      `actor_rollout_ref.actor.entropy_coeff is negative (${actor.entropy_coeff}), so the loss lowers the policy's entropy: verl's entropy_coeff weighs a bonus for it; 0 turns the bonus off`,
    );
  }
  return notes;
}

function scheduleNotes(cfg: RunConfig): string[] {
  const notes: string[] = [];
  const total = cfg.trainer.total_training_steps;
  const sections: { key: string; optim: { lr_scheduler_type: string; min_lr_ratio: number; num_cycles?: number; lr_warmup_steps_ratio?: number } }[] = [
    { key: 'actor_rollout_ref.actor.optim', optim: cfg.actor_rollout_ref.actor.optim },
  ];
  if (cfg.warm_start.mode !== 'none' && cfg.warm_start.steps > 0) sections.push({ key: 'warm_start', optim: cfg.warm_start });
  if (modelRoles(cfg).critic) sections.push({ key: 'critic.optim', optim: cfg.critic.optim });
  for (const { key, optim } of sections) {
    if (optim.lr_scheduler_type === 'constant') {
      const set = ['min_lr_ratio', 'num_cycles'].filter((name) => name in optim && isSet(cfg, `${key}.${name}`)).map((name) => `${key}.${name}`);
      if (set.length > 0) notes.push(`${listed(set)}, but only lr_scheduler_type: cosine reads ${them(set)} (${key}.lr_scheduler_type is constant)`);
    }
    const ratio = optim.lr_warmup_steps_ratio ?? 0;
    if (ratio > 0 && total > 0 && Math.floor(ratio * total) === 0) {
      notes.push(
        `${key}.lr_warmup_steps_ratio (${ratio}) of ${total} iterations rounds down to no warmup iteration, as in verl; ` +
          `${Math.ceil((1 / total) * 1000) / 1000} or more warms up over one`,
      );
    }
  }
  return notes;
}

function validationNotes(cfg: RunConfig): string[] {
  const { val_before_train: before, test_freq: every } = cfg.trainer;
  if (!before || every > 0) return [];
  return [
    `trainer.test_freq is ${every}, so the run never validates, not even before training as trainer.val_before_train asks ` +
      '(verl validates before training whatever test_freq is); set test_freq to N to validate every N iterations',
  ];
}

/** The update's result does not depend on its micro-batch; supervised steps whose batch follows it do. */
function warmStartBatchNotes(cfg: RunConfig): string[] {
  if (!isSet(cfg, 'micro_batch_size_per_gpu') && !isSet(cfg, 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu')) return [];
  const following = [
    cfg.warm_start.mode !== 'none' && cfg.warm_start.steps > 0 && cfg.warm_start.batch_size === null ? 'warm_start' : null,
    cfg.expert_iteration.rounds > 0 && cfg.expert_iteration.batch_size === null ? 'expert_iteration' : null,
  ].filter((key) => key !== null);
  if (following.length === 0) return [];
  const keys = following.map((key) => `${key}.batch_size`);
  return [
    `${keys.join(' and ')} ${keys.length > 1 ? 'are' : 'is'} null, so ${following.join(' and ')} ${keys.length > 1 ? 'take their' : 'takes its'} batches of the actor's micro-batch ` +
      `(${cfg.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu}): changing the micro-batch changes ${keys.length > 1 ? 'them' : 'it'}, and so the run, where the update alone would be the same; ` +
      `set ${keys.join(' and ')} to keep ${keys.length > 1 ? 'them' : 'it'}`,
  ];
}
