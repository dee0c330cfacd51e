import { parse } from 'yaml';

/**
 * Every run-config key with its default value and meaning: the one place defaults are written
 * down. Names follow RAGEN's base.yaml and verl's ppo_trainer.yaml where those have one; values
 * are RAGEN's unless a comment says otherwise. A user's config is merged over this (objects key
 * by key, lists and scalars replaced), `${a.b}` references are resolved afterwards, so a value
 * below that refers to another key follows the user's setting of that key.
 * configs/base.yaml is a copy of this text for users to start from.
 *
 * `warm_start.save_freq: 250`: a Sokoban warm start of 2,500 steps takes 2-3 hours on two cores,
 * so 250 steps loses at most 12-18 minutes to a kill, in ten saves. A save writes the policy and
 * the warm start's Adam moments (about 11 MB for the default 0.9M-parameter model, well under a
 * second), so ten of them cost nothing next to the steps; far fewer steps would write a pretrained
 * model trained in full (gigabytes) too often, and a short warm start (bandit's 50) saves none.
 */
export const DEFAULTS_YAML = `# TurnLab run config: every key with its default.
# A config file only needs the keys it changes. \${a.b} refers to another key's value;
# --set a.b=value on the command line overrides a key before validation.

ppo_mini_batch_size: 32          # episodes per PPO mini-batch (actor and critic refer to it)
micro_batch_size_per_gpu: 4      # episodes per forward/backward pass (gradient accumulation)
rollout_filter_ratio: 0.25       # StarPO-S: fraction of train groups kept for the update; 1 keeps all
rollout_filter_type: std         # std keeps the groups with the highest in-group reward std, std_rev the lowest
rollout_filter_include_zero: true # false also drops groups whose episodes all scored alike (DAPO)

trainer:
  project_name: turnlab
  experiment_name: default
  total_training_steps: 200      # PPO iterations (one rollout batch each)
  val_before_train: true         # run validation once before the first update
  test_freq: 10                  # validate every N steps; 0 or -1 never
  save_freq: 20                  # checkpoint every N steps; 0 or -1 only at the end
  keep_last_n: 3                 # newest checkpoints kept, besides the best by validation success (across resumes) and the warm start's (warm_start.save_checkpoint)
  seed: 0                        # seeds initialisation, sampling and the train seed schedule
  backend: auto                  # auto | tensorflow | webgpu | wasm | cpu (auto picks the fastest that loads)
  workers: 1                     # threads that roll out and compute gradients: N | auto (the cores); same seed and N, same run
  logger: [console]              # console (the progress bar) and tensorboard: event files under $TENSORBOARD_DIR or <data folder>/tensorboard, a folder a run (verl's trainer.logger)

model:                           # the policy (and critic trunk); TurnLab trains small models from scratch
  path: null                     # checkpoint folder whose policy and tokenizer start the run; null: fresh
  tokenizer: word-byte           # words and symbols fitted to the envs' text, bytes for the rest
  vocab_size: null               # null takes the tokenizer's own size
  n_layer: 4
  n_head: 4
  d_model: 128
  d_ff: 512
  context_length: 2048           # longest episode sequence (all turns) in tokens
  dropout: 0.0
  tie_embeddings: true
  position_encoding: learned     # learned (absolute, GPT-2) | rope (rotary, Qwen/Llama: attention sees offsets)
  rope_base: 10000               # rotary base (rope_theta); a small one suits short prompts

actor_rollout_ref:
  actor:
    ppo_mini_batch_size: \${ppo_mini_batch_size}
    ppo_micro_batch_size_per_gpu: \${micro_batch_size_per_gpu}
    ppo_epochs: 1                # passes over each rollout batch
    clip_ratio_low: 0.2          # PPO clip below 1
    clip_ratio_high: 0.28        # PPO clip above 1 (StarPO-S clip-higher; verl 0.2)
    clip_ratio_c: 3.0            # dual-clip bound for negative advantages (> 1)
    loss_agg_mode: token-mean    # token-mean | seq-mean-token-sum | seq-mean-token-mean | seq-mean-token-sum-norm
    loss_scale_factor: null      # seq-mean-token-sum-norm (Dr.GRPO) divides each episode's token sum by this constant
                                 # (verl's name); null: the episode's generation budget, response_length x max_turn
    entropy_coeff: 0.001
    use_kl_loss: false           # KL to the reference model as a loss term
    kl_loss_coef: 0.001
    kl_loss_type: low_var_kl     # kl (k1) | abs | mse (k2) | low_var_kl (k3)
    aux_value_coef: 0.0          # > 0: a value head on the policy's own trunk, fitted to each token's return to go beside the
                                 # policy loss (classic PPO's shared actor-critic vf_coef), so the trunk learns what predicts
                                 # the outcome; the advantages still come from the estimator; TurnLab's own models only
    grad_clip: 1.0               # global gradient-norm clip
    optim:
      lr: 1.0e-6                 # RAGEN/verl value for a pretrained 0.5B model; from-scratch models want ~1e-4
      weight_decay: 0.01
      betas: [0.9, 0.999]
      lr_warmup_steps_ratio: 0.0 # linear warmup from 0 over this fraction of the iterations
      lr_scheduler_type: constant # constant | cosine (towards min_lr_ratio x lr, reached after the last iteration)
      min_lr_ratio: 0.0          # cosine floor
      num_cycles: 0.5            # cosine periods over the run; 0.5 decays once
  rollout:
    temperature: 1.0
    top_p: 1.0
    top_k: -1                    # -1 (or 0) samples from the whole vocabulary
    response_length: 400         # most tokens generated per turn
    stop: []                     # strings that also end a reply, kept in it (vLLM's stop), e.g. ["</answer>"]
    prefix_reuse: true           # keep each episode's keys/values across turns; false re-encodes (same tokens, slower)
    val_kwargs:                  # sampling during validation
      temperature: 0.5
      top_p: 1.0
      top_k: -1
      do_sample: true            # false decodes greedily
  model:                         # a pretrained Hugging Face model as the policy (verl's keys); replaces \`model:\` above
    path: null                   # local folder with config.json, *.safetensors, tokenizer.json (Qwen2/Qwen3/Llama); null: train from scratch
    lora_rank: 0                 # LoRA adapters of this rank; 0 fine-tunes every weight
    lora_alpha: 16               # adapter scale alpha / rank
    target_modules: all-linear   # all-linear, or a list of q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj
    dtype: auto                  # auto: a BF16/F16 checkpoint's frozen (LoRA) base stays 16-bit (wasm, cpu, webgpu), half the memory; float32 widens every weight on load
    enable_gradient_checkpointing: null # recompute each layer's activations in the backward pass (less memory, about a third more time); null: on for a pretrained model, off for TurnLab's own

critic:
  ppo_mini_batch_size: \${ppo_mini_batch_size}
  ppo_micro_batch_size_per_gpu: \${micro_batch_size_per_gpu}
  ppo_epochs: \${actor_rollout_ref.actor.ppo_epochs}
  grad_clip: 1.0
  cliprange_value: 0.5           # value clip around the old values
  loss_agg_mode: \${actor_rollout_ref.actor.loss_agg_mode} # the value loss's own aggregation (verl's critic.loss_agg_mode)
  optim:
    lr: 1.0e-5
    weight_decay: 0.01
    betas: [0.9, 0.999]
    lr_warmup_steps_ratio: 0.0
    lr_scheduler_type: constant
    min_lr_ratio: 0.0
    num_cycles: 0.5

algorithm:
  adv_estimator: gae             # gae | grpo | gigpo | reinforce_plus_plus | reinforce_plus_plus_baseline | rloo
  gamma: 1.0                     # token-level discount (gigpo: per turn, for its step returns)
  lam: 1.0                       # GAE lambda
  bi_level_gae: false            # turn-level GAE with high_level_gamma, token-level within turns
  high_level_gamma: 0.95
  norm_adv_by_std_in_grpo: true  # false gives Dr.GRPO (no division by the group std)
  center_advantages_by_token: false # subtract from each trained token's advantage the batch mean of that token id's: an input-blind policy's move distribution then moves only where inputs differ (TurnLab's; see trainer-core/algo/token-centering.ts)
  center_advantages_prior: 0      # with center_advantages_by_token: each token id's mean shrunk as if this many more of its tokens had advantage 0, so a rare (malformed) token keeps most of its advantage and the format penalty still acts
  gigpo:                         # GiGPO (verl-agent): episode advantage + step advantage among turns from the same state
    step_advantage_w: 1.0        # weight of the step advantage
    episode_advantage_w: 1.0     # weight of the episode (GRPO) advantage; 0 judges each turn only against its group's turns from the same state
    mode: mean_std_norm          # mean_std_norm | mean_norm (no division by the std)
  turn_shaping: null             # {coef, gamma (1), end}: each train turn's reward plus coef x (gamma x phi(next) - phi(now)), phi = -solver distance to the goal (Ng et al. 1999);
                                 # end: absorbing (phi 0 after the last turn: the optimal policy is unchanged) | bootstrap (the last state keeps its phi); envs without a solver refuse it
  use_kl_in_reward: false        # fold a KL penalty into the token rewards
  kl_penalty: kl                 # estimator for the in-reward KL
  kl_ctrl:
    type: fixed                  # fixed | adaptive
    kl_coef: 0.001
    horizon: 10000               # adaptive controller
    target_kl: 0.1               # adaptive controller

agent_proxy:
  max_turn: 5                    # turns per episode at most
  action_sep: "||"               # separator between actions inside <answer>
  max_actions_per_turn: 5        # actions beyond this are cut
  use_turn_scores: false         # rewards at each turn's last token instead of all at the episode's end
  enable_think: true             # <think>...</think><answer>...</answer>; false: <answer> alone
  max_context_window: null       # keep only the last k turns in the prompt (each turn trains in its own window); null keeps all
  template: ragen                # ragen (RAGEN's prompt) | compact (short markers, no boilerplate)
  show_actions_left: false       # compact template: the actions left, under the board (ragen's prompt always states them)
  show_unchanged: false          # under the state, name the last turn's actions when they left it unchanged (a move into a wall), which a one-turn window cannot show
  reward_normalization:
    grouping: group              # group (RAGEN: state) | tag (RAGEN: inductive) | batch
    method: identity             # mean_std | mean | asym_clip | identity

es_manager:
  format_penalty: -0.1           # added to a turn's reward when it has an invalid or no valid action
  train:
    env_groups: 8                # groups per rollout; every member of a group starts from the same seed
    group_size: 16
    start_seed: \${trainer.seed}  # group g of reset r uses start_seed + r * env_groups + g
    seeds: []                    # start seeds to play instead, in turn (group g of reset r: seeds[(r * env_groups + g) mod length]), e.g. rooms a policy fails; [] counts from start_seed
    env_configs:
      tags: [SimpleSokoban]      # keys of custom_envs
      n_groups: [8]              # groups per tag; sums to env_groups
    stages: []                   # a curriculum: [{from_iteration: N, env_configs: {tags, n_groups}, kl_loss_coef?}, ...], from iteration N on the train rollouts play those envs (same env_groups) and, where given, the actor's KL loss weighs kl_loss_coef; [] plays env_configs throughout
  val:
    env_groups: 256
    group_size: 1
    start_seed: 1000000          # the same boards at every validation, apart from the train seeds (start_seed + iteration x env_groups), as RAGEN's val 123 is from its train 10000
    env_configs:
      tags: [SimpleSokoban]
      n_groups: [256]

custom_envs:                     # tag -> environment; env_config is checked by the env's own options schema
  SimpleSokoban:
    env_type: sokoban
    max_actions_per_traj: 10     # action budget per episode
    env_config: {}
  LargerSokoban:
    env_type: sokoban
    max_actions_per_traj: 10
    env_config: {dim_room: [8, 8], num_boxes: 2}
  FrozenLake:
    env_type: frozen_lake
    max_actions_per_traj: 10
    env_config: {}
  Countdown:
    env_type: countdown
    max_actions_per_traj: 1
    env_config: {}
  Bandit:
    env_type: bandit
    max_actions_per_traj: 1
    env_config: {}
  BanditRev:                     # the same arms with the names swapped (tests reliance on names)
    env_type: bandit_rev
    max_actions_per_traj: 1
    env_config: {}
  MetamathQA:
    env_type: metamathqa
    max_actions_per_traj: 1
    env_config: {}

warm_start:                      # supervised steps before RL, for models trained from scratch
  mode: none                     # none | expert (solver's actions) | random-valid (any valid action)
  steps: 0
  lr: 1.0e-3
  lr_scheduler_type: constant    # constant | cosine (over the warm start's steps, towards min_lr_ratio x lr)
  min_lr_ratio: 0.0
  batch_size: null               # demonstrations per step; null: the actor's ppo_micro_batch_size_per_gpu
  episodes: null                 # distinct demonstration episodes (start states); null: 4 train rollouts' worth
  expert_think: empty            # expert mode with agent_proxy.enable_think: empty <think></think> | plan (the solver's whole remaining solution, the answer its first moves)
  dagger_rounds: 0               # expert mode: times the policy plays new rooms during the warm start, every board it reaches labelled with the solver's move (DAgger)
  dagger_episodes: 1024          # rooms the policy plays in each DAgger round
  save_checkpoint: false         # keep the warm-started policy as checkpoint iter-0, never pruned (turnlab eval measures it; model.path starts RL from it)
  save_freq: 250                 # steps between warm-start checkpoints (only the latest kept), from which a stopped or killed run resumes its warm start; 0: none

expert_iteration:                # after the warm start, before RL: the policy imitates its own solved episodes (ReST-EM, RAFT); the reward is the only teacher
  rounds: 0                      # times the policy plays new start states and is fitted to every solved episode so far; 0: off
  episodes: 512                  # start states played each round, at the rollout temperature
  steps: 100                     # supervised steps on the pool after each round
  lr: 1.0e-3
  batch_size: null               # solved episodes per step; null: the actor's ppo_micro_batch_size_per_gpu
  prune_revisits: true           # a board seen again drops the turns since its first visit (loops and moves into walls); needs agent_proxy.max_context_window 1
  tries: 1                       # episodes played from each start state; the solved one with the fewest turns (then tokens) is kept
  pool_rounds: null              # the pool holds the solved episodes of the last k rounds; null: of every round so far
  drop_all_solved: false         # with tries > 1, a start state every try solved adds nothing to the pool: it holds what the policy is unsure of
  think: sampled                 # a kept reply's thinking: sampled, as the policy wrote it; hindsight, the moves the episode went on to play from that turn (needs agent_proxy.enable_think)
`;

/** The defaults as a plain object, `${}` references still unresolved. A fresh copy each call. */
export function defaultRunConfigInput(): Record<string, unknown> {
  return parse(DEFAULTS_YAML) as Record<string, unknown>;
}

let parsedDefaults: Record<string, unknown> | undefined;

/**
 * Whether a resolved config's value at `path` (dotted) differs from the default: a key the user,
 * or a shipped config, set. A default that is another key's value (`${ppo_mini_batch_size}`)
 * counts as set only where the value differs from that key's, so setting the key it follows does
 * not also set it.
 */
export function differsFromDefault(cfg: object, path: string): boolean {
  parsedDefaults ??= defaultRunConfigInput();
  const at = (root: unknown, dotted: string) => dotted.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], root);
  const fallback = at(parsedDefaults, path);
  const reference = typeof fallback === 'string' ? /^\$\{([\w.]+)\}$/.exec(fallback)?.[1] : undefined;
  const expected = reference !== undefined ? at(cfg, reference) : fallback;
  return JSON.stringify(at(cfg, path)) !== JSON.stringify(expected);
}
