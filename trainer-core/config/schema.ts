import { z } from 'zod';
import { estimatorNames, isEstimatorName } from '../algo/estimator-registry';
import { TURN_SHAPING_ENDS } from '../algo/turn-shaping';
import { BACKENDS } from '../backend-names';
import { LORA_MODULES } from './lora-targets';

/** Most worker threads a run may ask for (trainer.workers). */
export const MAX_WORKERS = 64;

/**
 * The run config schema. Every key is required here: the defaults live in one documented place
 * (defaults.ts) and are merged under the user's file before validation, so this schema only
 * says what a complete, resolved config looks like. Objects are strict so that a misspelt key
 * is an error rather than a silently ignored setting.
 */

const positiveInt = z.int().positive();
const nonNegativeInt = z.int().nonnegative();
const probability = z.number().min(0).max(1);
export const MAX_TRAINING_STEPS = 1_000_000;

export { BACKENDS };
export const LOSS_AGG_MODES = ['token-mean', 'seq-mean-token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'] as const;
export const KL_TYPES = ['kl', 'k1', 'abs', 'mse', 'k2', 'low_var_kl', 'k3'] as const;
/** `state` and `inductive` are RAGEN's names for `group` and `tag`. */
export const REWARD_GROUPINGS = ['group', 'tag', 'batch', 'state', 'inductive'] as const;
export const REWARD_METHODS = ['mean_std', 'mean', 'asym_clip', 'identity'] as const;
export const ROLLOUT_FILTER_TYPES = ['std', 'std_rev'] as const;
export const TEMPLATES = ['ragen', 'compact'] as const;
/** The word/byte tokenizer fitted to the environments' text (trainer-core/model/tokenizer.ts). */
export const TOKENIZERS = ['word-byte'] as const;
/** How the transformer sees token order (trainer-core/model/transformer.ts). */
export const POSITION_ENCODINGS = ['learned', 'rope'] as const;
/** verl's `lr_scheduler_type` (trainer-core/algo/lr-schedule.ts). */
export const LR_SCHEDULERS = ['constant', 'cosine'] as const;
export const WARM_START_MODES = ['none', 'expert', 'random-valid'] as const;
/** verl's `trainer.logger` backends that TurnLab writes: the progress bar, TensorBoard's event files. */
export const LOGGERS = ['console', 'tensorboard'] as const;

const trainerSchema = z.strictObject({
  project_name: z.string().min(1),
  experiment_name: z.string().min(1),
  // Each iteration stores its episodes and turns (tens of kB on the bandit): a million is months
  // of training and tens of GB already, so a larger figure is a typo, not a plan.
  total_training_steps: nonNegativeInt.max(MAX_TRAINING_STEPS),
  val_before_train: z.boolean(),
  test_freq: z.int(),
  save_freq: z.int(),
  keep_last_n: positiveInt,
  seed: nonNegativeInt,
  backend: z.enum(BACKENDS),
  // Each thread holds a copy of the models: a thousand of them (a typo) ran a 24 GB machine out of memory.
  workers: z.union([z.literal('auto'), positiveInt.max(MAX_WORKERS, { error: `workers is at most ${MAX_WORKERS} (each thread holds its own copy of the models); 'auto' uses this machine's cores` })], {
    error: "workers must be a positive integer or 'auto'",
  }),
  // verl's service loggers (wandb, mlflow, ...) are refused with what to use instead (foreign-keys.ts).
  logger: z.array(z.enum(LOGGERS)),
});

const modelSchema = z.strictObject({
  path: z.string().nullable(),
  tokenizer: z.enum(TOKENIZERS),
  vocab_size: positiveInt.nullable(),
  n_layer: positiveInt,
  n_head: positiveInt,
  d_model: positiveInt,
  d_ff: positiveInt,
  context_length: positiveInt,
  // The transformer has no dropout layers yet; a nonzero value would be silently ignored.
  dropout: z.literal(0, { error: 'dropout is not implemented: use 0' }),
  tie_embeddings: z.boolean(),
  position_encoding: z.enum(POSITION_ENCODINGS),
  rope_base: z.number().gt(1, { error: 'rope_base must be greater than 1 (Llama uses 10000, Qwen 1000000)' }),
});

const optimSchema = z.strictObject({
  lr: z.number().positive(),
  weight_decay: z.number().nonnegative(),
  betas: z.tuple([probability, probability]),
  lr_warmup_steps_ratio: probability,
  lr_scheduler_type: z.enum(LR_SCHEDULERS),
  min_lr_ratio: probability,
  num_cycles: z.number().positive(),
});

const actorSchema = z.strictObject({
  ppo_mini_batch_size: positiveInt,
  ppo_micro_batch_size_per_gpu: positiveInt,
  ppo_epochs: positiveInt,
  clip_ratio_low: z.number().positive(),
  clip_ratio_high: z.number().positive(),
  clip_ratio_c: z.number().gt(1),
  loss_agg_mode: z.enum(LOSS_AGG_MODES),
  loss_scale_factor: positiveInt.nullable(),
  entropy_coeff: z.number(),
  use_kl_loss: z.boolean(),
  kl_loss_coef: z.number().nonnegative(),
  kl_loss_type: z.enum(KL_TYPES),
  aux_value_coef: z.number().nonnegative(),
  grad_clip: z.number().positive(),
  optim: optimSchema,
});

const samplingSchema = {
  temperature: z.number().nonnegative(),
  top_p: z.number().gt(0).max(1),
  top_k: z.int().min(-1),
};

const rolloutSchema = z.strictObject({
  ...samplingSchema,
  response_length: positiveInt,
  stop: z.array(z.string().min(1, { error: 'a stop string cannot be empty' })),
  prefix_reuse: z.boolean(),
  val_kwargs: z.strictObject({ ...samplingSchema, do_sample: z.boolean() }),
});

/** verl's `actor_rollout_ref.model`: a local Hugging Face folder and its LoRA settings (trainer-core/model/hf). */
const pretrainedModelSchema = z.strictObject({
  path: z.string().min(1, { error: 'a model path cannot be empty: give a folder, or null to train from scratch' }).nullable(),
  lora_rank: nonNegativeInt,
  lora_alpha: z.number().positive(),
  target_modules: z.union([z.literal('all-linear'), z.array(z.enum(LORA_MODULES)).min(1)], {
    error: `target_modules must be "all-linear" or a list of ${LORA_MODULES.join(', ')}`,
  }),
  /** verl's key; null: on for a pretrained model, off for TurnLab's own (see gradientCheckpointing). */
  enable_gradient_checkpointing: z.boolean({ error: 'enable_gradient_checkpointing must be true, false or null' }).nullable(),
  /** transformers' from_pretrained dtype: auto keeps a 16-bit checkpoint's frozen base 16-bit (model/half-matrix.ts). */
  dtype: z.enum(['auto', 'float32']),
});

const criticSchema = z.strictObject({
  ppo_mini_batch_size: positiveInt,
  ppo_micro_batch_size_per_gpu: positiveInt,
  ppo_epochs: positiveInt,
  grad_clip: z.number().positive(),
  cliprange_value: z.number().positive(),
  loss_agg_mode: z.enum(LOSS_AGG_MODES),
  optim: optimSchema,
});

const algorithmSchema = z.strictObject({
  // Checked against the estimator registry when the config is read, so an estimator registered
  // by the caller's code is as valid as a built-in one.
  adv_estimator: z.string().check((ctx) => {
    if (!isEstimatorName(ctx.value)) ctx.issues.push({ code: 'invalid_value', values: estimatorNames(), input: ctx.value });
  }),
  gamma: probability,
  lam: probability,
  bi_level_gae: z.boolean(),
  high_level_gamma: probability,
  norm_adv_by_std_in_grpo: z.boolean(),
  center_advantages_by_token: z.boolean(),
  center_advantages_prior: z.number().nonnegative(),
  gigpo: z.strictObject({
    step_advantage_w: z.number().nonnegative(),
    episode_advantage_w: z.number().nonnegative(),
    mode: z.enum(['mean_std_norm', 'mean_norm']),
  }),
  turn_shaping: z.strictObject({ coef: z.number().nonnegative(), gamma: probability.default(1), end: z.enum(TURN_SHAPING_ENDS).default('absorbing') }).nullable(),
  use_kl_in_reward: z.boolean(),
  kl_penalty: z.enum(KL_TYPES),
  kl_ctrl: z.strictObject({
    type: z.enum(['fixed', 'adaptive']),
    kl_coef: z.number().nonnegative(),
    horizon: positiveInt,
    target_kl: z.number().positive(),
  }),
});

const agentProxySchema = z.strictObject({
  max_turn: positiveInt,
  action_sep: z.string().min(1),
  max_actions_per_turn: positiveInt,
  use_turn_scores: z.boolean(),
  enable_think: z.boolean(),
  max_context_window: positiveInt.nullable(),
  template: z.enum(TEMPLATES),
  show_actions_left: z.boolean(),
  show_unchanged: z.boolean(),
  reward_normalization: z.strictObject({
    grouping: z.enum(REWARD_GROUPINGS),
    method: z.enum(REWARD_METHODS),
  }),
});

const envConfigsSchema = z.strictObject({
  tags: z.array(z.string().min(1)).min(1),
  n_groups: z.array(positiveInt).min(1),
});

const envSplitSchema = z.strictObject({
  env_groups: positiveInt,
  group_size: positiveInt,
  start_seed: nonNegativeInt,
  env_configs: envConfigsSchema,
});

/**
 * A curriculum step: from `from_iteration` on, the train rollouts play these envs instead, and,
 * where given, the actor's KL loss weighs `kl_loss_coef` (until a later stage sets another).
 */
const trainStageSchema = z.strictObject({
  from_iteration: positiveInt,
  env_configs: envConfigsSchema,
  kl_loss_coef: z.number().nonnegative().optional(),
});

const trainSplitSchema = envSplitSchema.extend({
  seeds: z.array(nonNegativeInt),
  stages: z.array(trainStageSchema),
});

const esManagerSchema = z.strictObject({
  // A positive "penalty" would reward malformed replies.
  format_penalty: z.number().max(0),
  train: trainSplitSchema,
  val: envSplitSchema,
});

/** One environment tag. Unlike the rest, its keys have defaults here: tags are user-made. */
export const customEnvSchema = z.strictObject({
  env_type: z.string().min(1),
  max_actions_per_traj: positiveInt.default(10),
  env_instruction: z.string().optional(),
  /** Validated later by the env's own `optionsSchema`. */
  env_config: z.record(z.string(), z.unknown()).default({}),
  /** Path of a module exporting an EnvSpec, for custom environments. */
  module: z.string().min(1).optional(),
});

const warmStartSchema = z.strictObject({
  mode: z.enum(WARM_START_MODES),
  steps: nonNegativeInt,
  lr: z.number().positive(),
  lr_scheduler_type: z.enum(LR_SCHEDULERS),
  min_lr_ratio: probability,
  batch_size: positiveInt.nullable(),
  episodes: positiveInt.nullable(),
  expert_think: z.enum(['empty', 'plan']),
  dagger_rounds: nonNegativeInt,
  dagger_episodes: positiveInt,
  save_checkpoint: z.boolean(),
  save_freq: nonNegativeInt,
});

const expertIterationSchema = z.strictObject({
  rounds: nonNegativeInt,
  episodes: positiveInt,
  steps: positiveInt,
  lr: z.number().positive(),
  batch_size: positiveInt.nullable(),
  prune_revisits: z.boolean(),
  tries: positiveInt,
  pool_rounds: positiveInt.nullable(),
  drop_all_solved: z.boolean(),
  think: z.enum(['sampled', 'hindsight']),
});

export const RunConfigSchema = z.strictObject({
  ppo_mini_batch_size: positiveInt,
  micro_batch_size_per_gpu: positiveInt,
  rollout_filter_ratio: z.number().gt(0).max(1),
  rollout_filter_type: z.enum(ROLLOUT_FILTER_TYPES),
  rollout_filter_include_zero: z.boolean(),
  trainer: trainerSchema,
  model: modelSchema,
  actor_rollout_ref: z.strictObject({ actor: actorSchema, rollout: rolloutSchema, model: pretrainedModelSchema }),
  critic: criticSchema,
  algorithm: algorithmSchema,
  agent_proxy: agentProxySchema,
  es_manager: esManagerSchema,
  custom_envs: z.record(z.string().min(1), customEnvSchema),
  warm_start: warmStartSchema,
  expert_iteration: expertIterationSchema,
});

export type RunConfig = z.output<typeof RunConfigSchema>;

type DeepPartial<T> = T extends readonly (infer U)[] ? readonly DeepPartial<U>[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;
/**
 * A run config as the store keeps it: the resolved config of the TurnLab that wrote it, which may
 * be an earlier one, so any key may be missing; readers fall back where one is.
 */
export type StoredRunConfig = DeepPartial<RunConfig>;
export type CustomEnvConfig = z.output<typeof customEnvSchema>;
export type EnvSplitConfig = z.output<typeof envSplitSchema>;
export type EnvConfigsConfig = z.output<typeof envConfigsSchema>;
export type TrainStageConfig = z.output<typeof trainStageSchema>;
export type AgentProxyConfig = z.output<typeof agentProxySchema>;
export type RewardNormalizationConfig = AgentProxyConfig['reward_normalization'];
