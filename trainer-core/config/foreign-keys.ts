// Keys of verl's and RAGEN's configs that TurnLab has no key for, with what to use instead. A
// researcher pastes a line from a verl script (`actor_rollout_ref.rollout.n=8`) and the closest
// TurnLab key by spelling (`rollout.stop`) would send them the wrong way: say what it meant there
// and where that lives here.
import { formatPath } from './errors';

const SINGLE_MACHINE =
  'TurnLab trains in one process on `trainer.backend` (auto, webgpu, tensorflow, wasm, cpu) with `trainer.workers` threads for rollouts; runs across machines go through `turnlab sweep --executor slurm`';
const OWN_SAMPLER = 'TurnLab samples with its own decoder on `trainer.backend`, not vLLM or SGLang: leave it out';
const PACKED = 'TurnLab packs the micro-batches of `micro_batch_size_per_gpu` episodes by length already: leave it out';
const STORED = 'every episode and turn is stored in the data folder as it is played: Replay in the workbench, or `turnlab export <run> --what turns --format jsonl`';
const NOT_TORCH = 'TurnLab trains on TensorFlow.js (`trainer.backend`), not PyTorch: leave it out';

/** verl's or RAGEN's key (or section, ending in a dot) and what it is here. */
export const FOREIGN_KEYS: ReadonlyArray<readonly [string, string]> = [
  ['actor_rollout_ref.rollout.n', "verl's responses per prompt; TurnLab groups episodes as RAGEN does: `es_manager.train.group_size`"],
  ['data.train_batch_size', "verl's prompts per step; here `es_manager.train.env_groups` groups of `es_manager.train.group_size` episodes"],
  ['data.max_response_length', 'the most tokens of a reply is `actor_rollout_ref.rollout.response_length` (each turn)'],
  ['data.max_prompt_length', "a turn's prompt is the episode so far, bounded by `model.context_length` and `agent_proxy.max_context_window` turns"],
  ['data.', "verl reads prompts from `data`; TurnLab's prompts come from the environments of `es_manager` and `custom_envs`"],
  ['trainer.n_gpus_per_node', SINGLE_MACHINE],
  ['trainer.nnodes', SINGLE_MACHINE],
  ['trainer.total_epochs', 'TurnLab counts iterations: `trainer.total_training_steps`'],
  ['trainer.default_local_dir', 'checkpoints live in the data folder (`--data-dir` or TURNLAB_DATA_DIR), under checkpoints/run-<id>'],
  ['trainer.resume_mode', 'resume a run with `turnlab resume <run>` (or from the workbench), fork it with `--fork`'],
  ['trainer.critic_warmup', "not in TurnLab: the critic trains from the first iteration; lower the actor's rate at the start with `actor_rollout_ref.actor.optim.lr_warmup_steps_ratio`"],
  ['actor_rollout_ref.rollout.name', OWN_SAMPLER],
  ['actor_rollout_ref.rollout.mode', OWN_SAMPLER],
  ['actor_rollout_ref.rollout.tensor_model_parallel_size', OWN_SAMPLER],
  ['actor_rollout_ref.rollout.gpu_memory_utilization', OWN_SAMPLER],
  ['actor_rollout_ref.rollout.max_num_batched_tokens', OWN_SAMPLER],
  ['actor_rollout_ref.rollout.enforce_eager', OWN_SAMPLER],
  ['actor_rollout_ref.rollout.free_cache_engine', OWN_SAMPLER],
  ['actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu', 'scoring passes take `actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu` episodes, as the update does'],
  ['actor_rollout_ref.actor.use_dynamic_bsz', PACKED],
  ['actor_rollout_ref.actor.ppo_max_token_len_per_gpu', PACKED],
  ['actor_rollout_ref.actor.strategy', SINGLE_MACHINE],
  ['actor_rollout_ref.actor.fsdp_config.', SINGLE_MACHINE],
  ['actor_rollout_ref.actor.ulysses_sequence_parallel_size', SINGLE_MACHINE],
  ['actor_rollout_ref.ref.', 'the reference is the policy as it started, kept by TurnLab when `actor_rollout_ref.actor.use_kl_loss` or `algorithm.use_kl_in_reward` is on; it has no settings of its own'],
  ['actor_rollout_ref.model.use_remove_padding', PACKED],
  ['actor_rollout_ref.actor.ppo_micro_batch_size', "verl's older micro-batch over every GPU; TurnLab's is one device's: `actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu` (`micro_batch_size_per_gpu` sets it and the critic's)"],
  ['actor_rollout_ref.rollout.dtype', "the rollout samples with the policy's own weights: `actor_rollout_ref.model.dtype` (auto keeps a 16-bit folder's base 16-bit; float32 widens it)"],
  ['actor_rollout_ref.model.trust_remote_code', 'TurnLab runs no code from a model folder: its architectures (Qwen2, Qwen3, Llama) are built in and chosen by config.json; leave it out'],
  ['actor_rollout_ref.model.custom_chat_template', "a pretrained folder's chat template is its tokenizer_config.json's `chat_template` (edit it there); a model trained from scratch uses `agent_proxy.template`"],
  ['actor_rollout_ref.model.tokenizer_path', "the tokenizer is the model folder's own (tokenizer.json, tokenizer_config.json): put the one you want there"],
  ['actor_rollout_ref.model.lora_adapter_path', "TurnLab's adapters start at zero; to go on from adapters it trained, resume or fork their run (`turnlab resume <run> --fork`), or merge them into a folder with `turnlab export-model` and set `actor_rollout_ref.model.path` to it"],
  ['actor_rollout_ref.model.use_rslora', 'TurnLab trains LoRA at lora_alpha / lora_rank (PEFT\'s default); for the scale rsLoRA gives, set `actor_rollout_ref.model.lora_alpha` to alpha x sqrt(lora_rank)'],
  ['actor_rollout_ref.model.use_liger', NOT_TORCH],
  ['actor_rollout_ref.model.use_fused_kernels', 'TurnLab fuses its own kernels on WebGPU (`trainer.backend`): leave it out'],
  ['actor_rollout_ref.model.use_shm', NOT_TORCH],
  ['actor_rollout_ref.model.external_lib', 'TurnLab runs no code from a model folder or library: its architectures (Qwen2, Qwen3, Llama) are built in; leave it out'],
  ['actor_rollout_ref.model.override_config.', "the model's shape is its folder's config.json; TurnLab does not override it: edit a copy of the folder's config.json"],
  ['system.', "RAGEN's process settings (`system.CUDA_VISIBLE_DEVICES`); TurnLab picks its device by `trainer.backend`: leave them out"],
  ['actor_rollout_ref.actor.clip_ratio', "verl's symmetric clip, which its clip_ratio_low and clip_ratio_high fall back to; here set both, `actor_rollout_ref.actor.clip_ratio_low` and `actor_rollout_ref.actor.clip_ratio_high` (defaults 0.2 and 0.28, RAGEN's clip-higher)"],
  ['actor_rollout_ref.actor.policy_loss.', "TurnLab's policy loss is PPO's clipped objective with the dual clip (`actor_rollout_ref.actor.clip_ratio_low`, `clip_ratio_high`, `clip_ratio_c`), aggregated by `actor_rollout_ref.actor.loss_agg_mode`"],
  ['actor_rollout_ref.actor.checkpoint.', 'a checkpoint always holds the policy, the critic where there is one, the optimizers and the run state a bit-exact resume needs: leave it out'],
  ['actor_rollout_ref.actor.use_torch_compile', NOT_TORCH],
  ['actor_rollout_ref.hybrid_engine', NOT_TORCH],
  ['actor_rollout_ref.actor.shuffle', "TurnLab reshuffles the episodes into mini-batches every epoch from the run's seed (verl's `shuffle: true`): leave it out"],
  ['algorithm.filter_groups.', "DAPO's dynamic sampling: here `rollout_filter_include_zero: false` drops the groups whose episodes all scored alike (without resampling), and `rollout_filter_ratio` keeps the groups that disagree most (StarPO-S)"],
  ['actor_rollout_ref.rollout.do_sample', 'training rollouts always sample (`actor_rollout_ref.rollout.temperature`, `top_p`, `top_k`); greedy validation is `actor_rollout_ref.rollout.val_kwargs.do_sample` set to false'],
  ['actor_rollout_ref.rollout.val_kwargs.n', 'validation plays `es_manager.val.group_size` episodes from each start state'],
  ['actor_rollout_ref.rollout.prompt_length', "a turn's prompt is the episode so far, bounded by `model.context_length` and `agent_proxy.max_context_window` turns"],
  ['actor_rollout_ref.rollout.multi_turn.', 'every TurnLab run is multi-turn: `agent_proxy.max_turn` turns an episode, `agent_proxy.max_context_window` of them in the prompt'],
  ['actor_rollout_ref.rollout.max_num_seqs', OWN_SAMPLER],
  ['actor_rollout_ref.rollout.enable_chunked_prefill', OWN_SAMPLER],
  ['actor_rollout_ref.rollout.load_format', OWN_SAMPLER],
  ['critic.model.', "the critic starts from the policy's weights with a fresh value head, as verl's critic loads the actor's model; it has no model of its own"],
  ['reward_model.', "TurnLab's rewards come from the environments (`es_manager`, `custom_envs`), not from a reward model: leave it out"],
  ['custom_reward_function.', 'a reward of your own is an environment of your own: `custom_envs` names its module (docs/custom-environments.md)'],
  ['trainer.log_val_generations', STORED],
  ['trainer.rollout_data_dir', STORED],
  ['trainer.validation_data_dir', STORED],
  ['trainer.default_hdfs_dir', 'checkpoints live in the data folder (`--data-dir` or TURNLAB_DATA_DIR), under checkpoints/run-<id>'],
  ['trainer.max_actor_ckpt_to_keep', 'the newest checkpoints kept are `trainer.keep_last_n` (and the best by validation success)'],
  ['trainer.max_critic_ckpt_to_keep', 'the newest checkpoints kept are `trainer.keep_last_n` (and the best by validation success)'],
  ['trainer.val_only', '`turnlab eval <run>` plays a checkpoint on the validation episodes, `turnlab eval --model DIR --config FILE` a model untrained'],
  ['trainer.device', 'the device follows `trainer.backend` (`turnlab backends` lists what starts here)'],
  ['ray_init.', SINGLE_MACHINE],
  ['enable_response_mask', "RAGEN's switch: TurnLab always trains on the reply tokens alone: leave it out"],
  ['collapse_detection.', "TurnLab watches for RAGEN's echo trap itself (`rollout/collapse`, a warning line and the workbench's badge; docs/training.md): leave it out"],
  ['model_path', 'a pretrained model is `actor_rollout_ref.model.path` (a Hugging Face folder)'],
  ['lora.', 'LoRA is `actor_rollout_ref.model.lora_rank`, `lora_alpha` and `target_modules`'],
  ['seed.train', "RAGEN's first train seed: here `es_manager.train.start_seed` (by default `trainer.seed`, which also seeds the weights and the sampling)"],
  ['seed.val', "RAGEN's validation seed: here `es_manager.val.start_seed` (1000000, apart from the train seeds as RAGEN's 123 is from its 10000)"],
  ['seed.', 'the run\'s seed is `trainer.seed` (the weights, the sampling and the train episodes); the episodes\' own are `es_manager.train.start_seed` and `es_manager.val.start_seed`'],
  ['defaults', "Hydra's defaults list, which TurnLab does not read: a config is one file, and a key it leaves out keeps its default (configs/base.yaml lists them all); start from a copy of a shipped config, or `turnlab show <run> --config`"],
  ['hydra.', "Hydra's own settings (output folder, job name): TurnLab keeps every run in its data folder: leave them out"],
  ['actor_rollout_ref.rollout.rollout_filter_ratio', "RAGEN's newer place for StarPO-S's filter; here it is the top-level `rollout_filter_ratio` (the fraction of train groups kept)"],
  ['actor_rollout_ref.rollout.rollout_filter_type', "RAGEN's newer place for StarPO-S's filter; here it is the top-level `rollout_filter_type` (std keeps the groups whose rewards spread most, std_rev the least)"],
  ['actor_rollout_ref.rollout.rollout_filter_metric', "TurnLab's filter ranks groups by their rewards' spread (RAGEN's reward_variance) and has no other metric: leave it out, and set the top-level `rollout_filter_type`"],
  ['actor_rollout_ref.actor.use_ref', 'the reference is kept whenever a KL term needs it (`actor_rollout_ref.actor.use_kl_loss` or `algorithm.use_kl_in_reward`): leave it out'],
  ['grpo_advantage_length_weight', "RAGEN's experiment scaling GRPO's advantages by reply length is not in TurnLab; how replies of different lengths weigh is `actor_rollout_ref.actor.loss_agg_mode` (seq-mean-token-mean weighs each episode alike)"],
  ['ctx_manager.', "RAGEN's context manager: here the prompt is `agent_proxy` (template, max_context_window, enable_think) and sampling `actor_rollout_ref.rollout` (temperature, top_p, response_length)"],
  ['actor_rollout_ref.actor.optim.warmup_style', "verl's older name of `actor_rollout_ref.actor.optim.lr_scheduler_type` (constant | cosine)"],
  ['critic.optim.warmup_style', "verl's older name of `critic.optim.lr_scheduler_type` (constant | cosine)"],
  ['actor_rollout_ref.actor.optim.lr_warmup_steps', "verl's warmup in optimiser steps (-1: use the ratio); TurnLab warms up over a fraction of the iterations: `actor_rollout_ref.actor.optim.lr_warmup_steps_ratio` (0.1 of 200 iterations is 20)"],
  ['critic.optim.lr_warmup_steps', "verl's warmup in optimiser steps (-1: use the ratio); TurnLab warms up over a fraction of the iterations: `critic.optim.lr_warmup_steps_ratio` (0.1 of 200 iterations is 20)"],
];

const NOT_BUILT_IN = "verl's estimator of that name is not built into TurnLab: choose one listed, or register your own (docs/architecture.md)";
const STRAIGHT_THROUGH = "verl's `+` variants (one estimator's value with k2's gradient) are not in TurnLab: use the estimator without the `+`";

/** verl's or RAGEN's values of a TurnLab key that TurnLab does not take (the key, `*` for any list item), with what to use instead. */
export const FOREIGN_VALUES: ReadonlyArray<readonly [string, readonly (string | number)[], string]> = [
  [
    'trainer.logger.*',
    ['wandb', 'mlflow', 'swanlab', 'vemlp_wandb', 'clearml', 'trackio'],
    "it sends the metrics to a service; TurnLab keeps them in its data folder, shows them in the workbench, and `turnlab export` writes them as CSV, JSONL or TensorBoard's files (or add tensorboard here)",
  ],
  ['algorithm.adv_estimator', ['ppo'], "PPO with a critic is `gae` (the Runs table shows it as ppo (gae)); every estimator trains with PPO's clipped loss"],
  ['algorithm.adv_estimator', ['bi_level_gae', 'bilevel_gae', 'bi-level-gae'], "RAGEN's bi-level GAE is `gae` with `algorithm.bi_level_gae: true`"],
  [
    'algorithm.adv_estimator',
    ['drgrpo', 'dr_grpo', 'dr-grpo'],
    'Dr.GRPO is `grpo` with `algorithm.norm_adv_by_std_in_grpo: false` and `actor_rollout_ref.actor.loss_agg_mode: seq-mean-token-sum-norm`',
  ],
  ['algorithm.adv_estimator', ['reinforce++', 'reinforce_pp', 'reinforcepp'], 'REINFORCE++ is `reinforce_plus_plus` (verl\'s name); `reinforce_plus_plus_baseline` subtracts the group\'s mean first'],
  ['algorithm.adv_estimator', ['grpo_vectorized'], "verl's vectorised GRPO computes what `grpo` does"],
  ['algorithm.adv_estimator', ['rloo_vectorized'], "verl's vectorised RLOO computes what `rloo` does"],
  ['algorithm.adv_estimator', ['remax', 'grpo_passk', 'opo', 'gpg', 'optimal_token_baseline', 'tir_optimal_token_baseline', 'gdpo'], NOT_BUILT_IN],
  ['actor_rollout_ref.actor.kl_loss_type', ['kl+', 'k1+', 'abs+', 'mse+', 'k2+', 'low_var_kl+', 'k3+'], STRAIGHT_THROUGH],
  ['algorithm.kl_penalty', ['kl+', 'k1+', 'abs+', 'mse+', 'k2+', 'low_var_kl+', 'k3+'], STRAIGHT_THROUGH],
  ['rollout_filter_type', ['largest'], "RAGEN's largest (by rollout_filter_metric reward_variance) is `std` here; `std_rev` keeps the smallest"],
  ['rollout_filter_type', ['smallest'], "RAGEN's smallest (by rollout_filter_metric reward_variance) is `std_rev` here; `std` keeps the largest"],
  ['rollout_filter_type', ['max_mean'], "RAGEN's filter by the groups' best or mean reward is not in TurnLab: `std` keeps the groups whose episodes disagree most"],
  ['agent_proxy.max_context_window', [-1], "RAGEN's -1 (every turn in the prompt) is null here"],
  [
    'actor_rollout_ref.model.dtype',
    ['bfloat16', 'bf16', 'float16', 'fp16', 'half'],
    "auto (the default) keeps a BF16 or F16 checkpoint's frozen LoRA base in its 16 bits, as transformers' torch_dtype=auto does; weights that train (LoRA adapters, or every weight without lora_rank) are float32 either way",
  ],
];

/** What verl or RAGEN meant by `value` at `path` and what to use here, or undefined for a value they do not have either. */
export function foreignValueAdvice(path: ReadonlyArray<string | number>, value: unknown): string | undefined {
  const key = path.map((part) => (typeof part === 'number' ? '*' : part)).join('.');
  return FOREIGN_VALUES.find(([name, values]) => name === key && (typeof value === 'string' || typeof value === 'number') && values.includes(value))?.[2];
}

/** What verl or RAGEN meant by `path` and where it is here, or undefined for a key they do not have either. */
export function foreignKeyAdvice(path: ReadonlyArray<string | number>): string | undefined {
  const key = formatPath(path);
  return FOREIGN_KEYS.find(([name]) => (name.endsWith('.') ? key.startsWith(name) || `${key}.` === name : key === name))?.[1];
}

/**
 * The message for a key the schema does not have: what verl or RAGEN meant by it, where they
 * have it, else the closest valid key by spelling. `given` is the whole key an override named,
 * when the unknown part is a section above it (`data` of `data.train_batch_size`).
 */
export function unknownKeyMessage(path: ReadonlyArray<string | number>, suggestion: string | undefined, given: ReadonlyArray<string | number> = path): string {
  const exact = foreignKeyAdvice(given);
  const advice = exact ?? foreignKeyAdvice(path);
  const head = `unknown key \`${formatPath(exact !== undefined ? given : path)}\``;
  if (advice !== undefined) return `${head}: ${advice}`;
  return suggestion !== undefined ? `${head}; did you mean \`${formatPath([...path.slice(0, -1), suggestion])}\`?` : head;
}
