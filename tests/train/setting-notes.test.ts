// Settings that are valid but not what their numbers say (a micro-batch clamped to its
// mini-batch, LoRA keys without a rank, a warm start on a pretrained model) are said as the run
// starts, and no shipped config says any of them.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { settingNotes } from '../../trainer-core/compute';
import { episodesPerUpdate } from '../../trainer-core/train/setting-notes';
import { prepareRun } from '../../main/services/prepare-run';
import { repoRoot } from '../helpers/turnlab-cli';

const config = (name: string, overrides: string[] = []) => loadRunConfig(join(repoRoot, 'configs', name), overrides);
const SMALL = ['es_manager.train.env_groups=2', 'es_manager.train.group_size=2', 'es_manager.train.env_configs.n_groups=[2]'];

describe('setting notes', () => {
  it('says nothing for a shipped config as it is, but what the estimator comparison sets for its other estimators', () => {
    const names = readdirSync(join(repoRoot, 'configs')).filter((f) => f.endsWith('.yaml') && f !== 'sokoban-hard.yaml');
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) expect([name, settingNotes(config(name))]).toEqual([name, []]);
    expect(settingNotes(config('sokoban-hard.yaml'))).toEqual([
      'note: algorithm.gamma is set, but only adv_estimator: gae, gigpo or reinforce_plus_plus reads it (algorithm.adv_estimator is grpo)',
      'note: critic.optim.lr is set, but adv_estimator: grpo trains no critic (only gae does), so nothing reads it',
    ]);
    expect(settingNotes(config('sokoban-hard.yaml', ['algorithm.adv_estimator=gigpo']))).toEqual(['note: critic.optim.lr is set, but adv_estimator: gigpo trains no critic (only gae does), so nothing reads it']);
    expect(settingNotes(config('sokoban-hard.yaml', ['algorithm.adv_estimator=gae', 'algorithm.bi_level_gae=true']))).toEqual([]);
  });

  it('counts the episodes an update gets after the rollout filter', () => {
    expect(episodesPerUpdate(config('base.yaml'))).toBe(32);
    expect(episodesPerUpdate(config('bandit.yaml', SMALL))).toBe(4);
    expect(episodesPerUpdate(config('base.yaml', ['rollout_filter_ratio=0.01']))).toBe(16);
  });

  it('says a mini-batch is clamped to the episodes an update gets, and a micro-batch to its mini-batch', () => {
    expect(settingNotes(config('bandit.yaml', [...SMALL, 'ppo_mini_batch_size=64', 'micro_batch_size_per_gpu=64', 'warm_start.batch_size=null']))).toEqual([
      'note: actor_rollout_ref.actor.ppo_mini_batch_size (64) is more than the 4 episodes an update gets (es_manager.train.env_groups 2 x group_size 2), so each epoch is one mini-batch of 4: one optimiser step',
      'note: actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu (64) is more than the mini-batch of 4 episodes, so each mini-batch is one micro-batch of 4',
      "note: warm_start.batch_size is null, so warm_start takes its batches of the actor's micro-batch (64): changing the micro-batch changes it, and so the run, " +
        'where the update alone would be the same; set warm_start.batch_size to keep it',
    ]);
    expect(settingNotes(config('base.yaml', ['rollout_filter_ratio=0.125']))[0]).toContain('(es_manager.train.env_groups 8 x group_size 16 of which rollout_filter_ratio 0.125 keeps 1 groups)');
  });

  it("names the critic's batch too when GAE trains one", () => {
    const notes = settingNotes(config('bandit.yaml', ['algorithm.adv_estimator=gae', 'algorithm.norm_adv_by_std_in_grpo=true', 'critic.ppo_micro_batch_size_per_gpu=3']));
    expect(notes).toEqual([
      'note: critic.ppo_mini_batch_size (16) is not a multiple of ppo_micro_batch_size_per_gpu (3), so each mini-batch is split into micro-batches of at most 3 episodes (verl asks for a multiple; the loss is the same either way)',
    ]);
    expect(settingNotes(config('bandit.yaml', ['critic.ppo_micro_batch_size_per_gpu=3']))).toEqual([
      'note: critic.ppo_micro_batch_size_per_gpu is set, but adv_estimator: grpo trains no critic (only gae does), so nothing reads it',
    ]);
  });

  it('says when validation plays start seeds the run also trains on (the default keeps them apart)', () => {
    // 40 iterations of 2 groups from seed 0 reach seed 79: validation from 60 shares 20 of its 64.
    const overlapping = config('bandit.yaml', [...SMALL, 'ppo_mini_batch_size=4', 'micro_batch_size_per_gpu=4', 'trainer.total_training_steps=40', 'es_manager.val.start_seed=60', 'es_manager.val.env_groups=64', 'es_manager.val.env_configs.n_groups=[64]']);
    expect(settingNotes(overlapping)).toEqual([
      'note: 20 of the 64 validation start seeds (es_manager.val.start_seed 60 on) are train seeds too (es_manager.train.start_seed 0 on, 2 a rollout), ' +
        'so validation success partly measures boards the run trained on; move es_manager.val.start_seed past the train seeds (the default, 1000000, is)',
    ]);
    expect(settingNotes(config('bandit.yaml', [...SMALL, 'es_manager.train.seeds=[5,61,61,200]', 'es_manager.val.start_seed=60'])).find((n) => n.includes('validation start seeds'))).toMatch(/^note: 1 of the \d+ validation start seeds .* \(es_manager.train.seeds\)/);
    expect(config('frozenlake.yaml').es_manager.val.start_seed).toBe(1_000_000);
  });

  it('says LoRA keys without a rank train every weight', () => {
    const hf = ['actor_rollout_ref.model.path=/models/qwen', 'actor_rollout_ref.model.lora_alpha=32', 'actor_rollout_ref.model.target_modules=[q_proj]'];
    expect(settingNotes(config('bandit.yaml', [...hf, 'warm_start.steps=0']))).toEqual([
      'note: actor_rollout_ref.model.lora_alpha and actor_rollout_ref.model.target_modules are set, but actor_rollout_ref.model.lora_rank is 0, so no adapters are made and ' +
        'every weight of the pretrained model trains (full fine-tuning); set lora_rank (8, say) to train LoRA adapters',
    ]);
    expect(settingNotes(config('bandit.yaml', [...hf, 'warm_start.steps=0', 'actor_rollout_ref.model.lora_rank=8']))).toEqual([]);
  });

  it("says a shipped config's warm start runs on a pretrained model, and not on a resume", () => {
    const cfg = config('sokoban.yaml', ['actor_rollout_ref.model.path=/models/qwen', 'actor_rollout_ref.model.lora_rank=8']);
    expect(settingNotes(cfg)).toEqual([
      "note: the warm start imitates the solver's moves for 2500 steps at warm_start.lr 0.002 on the pretrained model before RL begins; " +
        'RAGEN starts RL from the model as it is: add warm_start.steps=0 to do the same',
    ]);
    expect(settingNotes(cfg, { resuming: true })).toEqual([]);
    expect(settingNotes(config('sokoban.yaml'))).toEqual([]);
  });

  it('says which algorithm settings the chosen estimator or loss never reads', () => {
    const notes = (overrides: string[]) => settingNotes(config('base.yaml', overrides));
    expect(notes(['algorithm.adv_estimator=grpo', 'algorithm.gigpo.mode=mean_norm', 'algorithm.high_level_gamma=0.9'])).toEqual([
      'note: algorithm.gigpo.mode is set, but only adv_estimator: gigpo reads it (algorithm.adv_estimator is grpo)',
      'note: algorithm.high_level_gamma is set, but only bi-level GAE (adv_estimator: gae with bi_level_gae: true) reads it (algorithm.adv_estimator is grpo)',
    ]);
    expect(notes(['algorithm.adv_estimator=gae', 'algorithm.bi_level_gae=true', 'algorithm.high_level_gamma=0.9'])).toEqual([]);
    // bandit.yaml leaves out GRPO's std division; GiGPO keeps its own unless told.
    expect(settingNotes(config('bandit.yaml', ['algorithm.adv_estimator=gigpo']))).toEqual([
      'note: algorithm.norm_adv_by_std_in_grpo is false, but only adv_estimator: grpo reads it (algorithm.adv_estimator is gigpo); GiGPO divides by the std unless algorithm.gigpo.mode=mean_norm',
    ]);
    expect(notes(['algorithm.kl_ctrl.type=adaptive', 'algorithm.kl_ctrl.target_kl=0.01'])).toEqual([
      'note: algorithm.kl_ctrl.type, algorithm.kl_ctrl.target_kl are set, but only the KL penalty in the reward reads them, and algorithm.use_kl_in_reward is false',
    ]);
    expect(notes(['algorithm.kl_ctrl.type=adaptive', 'algorithm.use_kl_in_reward=true'])).toEqual([]);
    expect(notes(['algorithm.use_kl_in_reward=true', 'actor_rollout_ref.actor.use_kl_loss=true'])).toEqual([
      'note: algorithm.use_kl_in_reward and actor_rollout_ref.actor.use_kl_loss are both on, so the KL to the reference is counted twice (verl warns of the same); keep one',
    ]);
    expect(notes(['actor_rollout_ref.actor.loss_scale_factor=100'])).toEqual([
      'note: actor_rollout_ref.actor.loss_scale_factor is set, but only loss_agg_mode: seq-mean-token-sum-norm reads it (it is token-mean)',
    ]);
    expect(notes(['actor_rollout_ref.actor.loss_scale_factor=100', 'actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-sum-norm'])).toEqual([]);
    expect(notes(['algorithm.adv_estimator=rloo', 'es_manager.train.group_size=1', 'rollout_filter_ratio=1', 'ppo_mini_batch_size=8'])).toEqual([
      'note: es_manager.train.group_size is 1, so rloo has no group to compare an episode with: as in verl a group of one has mean 0 (and std 1), ' +
        "so each advantage is the episode's own reward, with no baseline; a group_size of 2 or more gives one",
    ]);
    expect(notes(['es_manager.train.group_size=1', 'rollout_filter_ratio=1', 'ppo_mini_batch_size=8'])).toEqual([]);
  });

  it("says the critic's, the KL loss's, the discounts' and the schedules' keys a run sets where nothing reads them", () => {
    const notes = (overrides: string[]) => settingNotes(config('base.yaml', overrides));
    // A key that follows another (`${actor_rollout_ref.actor.ppo_epochs}`) is set only where it differs from it.
    expect(notes(['algorithm.adv_estimator=grpo', 'critic.optim.lr=1e-3', 'critic.cliprange_value=0.1', 'actor_rollout_ref.actor.ppo_epochs=2'])).toEqual([
      'note: critic.cliprange_value and critic.optim.lr are set, but adv_estimator: grpo trains no critic (only gae does), so nothing reads them',
    ]);
    expect(notes(['critic.optim.lr=1e-3', 'critic.ppo_epochs=3'])).toEqual([]);
    expect(notes(['actor_rollout_ref.actor.kl_loss_coef=0.5', 'actor_rollout_ref.actor.kl_loss_type=k1'])).toEqual([
      "note: actor_rollout_ref.actor.kl_loss_coef and actor_rollout_ref.actor.kl_loss_type are set, but actor_rollout_ref.actor.use_kl_loss is false, so there is no KL loss; set use_kl_loss=true for one (RAGEN's configs set both)",
    ]);
    expect(notes(['actor_rollout_ref.actor.kl_loss_coef=0.5', 'actor_rollout_ref.actor.use_kl_loss=true'])).toEqual([]);
    expect(notes(['algorithm.adv_estimator=grpo', 'algorithm.gamma=0.9', 'algorithm.lam=0.9'])).toEqual([
      'note: algorithm.gamma is set, but only adv_estimator: gae, gigpo or reinforce_plus_plus reads it (algorithm.adv_estimator is grpo)',
      'note: algorithm.lam is set, but only adv_estimator: gae reads it (algorithm.adv_estimator is grpo)',
    ]);
    expect(notes(['algorithm.adv_estimator=reinforce_plus_plus', 'algorithm.gamma=0.9'])).toEqual([]);
    // The value head's own returns discount by gamma too.
    expect(notes(['algorithm.adv_estimator=rloo', 'algorithm.gamma=0.9', 'actor_rollout_ref.actor.aux_value_coef=0.5'])).toEqual([]);
    expect(notes(['actor_rollout_ref.actor.optim.min_lr_ratio=0.5', 'actor_rollout_ref.actor.optim.num_cycles=1'])).toEqual([
      'note: actor_rollout_ref.actor.optim.min_lr_ratio and actor_rollout_ref.actor.optim.num_cycles are set, but only lr_scheduler_type: cosine reads them (actor_rollout_ref.actor.optim.lr_scheduler_type is constant)',
    ]);
    expect(notes(['actor_rollout_ref.actor.optim.min_lr_ratio=0.5', 'actor_rollout_ref.actor.optim.lr_scheduler_type=cosine'])).toEqual([]);
    expect(notes(['trainer.total_training_steps=10', 'actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.05'])).toEqual([
      'note: actor_rollout_ref.actor.optim.lr_warmup_steps_ratio (0.05) of 10 iterations rounds down to no warmup iteration, as in verl; 0.1 or more warms up over one',
    ]);
    expect(notes(['trainer.total_training_steps=10', 'actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.1'])).toEqual([]);
    expect(notes(['actor_rollout_ref.actor.entropy_coeff=-0.5'])).toEqual([
      "note: actor_rollout_ref.actor.entropy_coeff is negative (-0.5), so the loss lowers the policy's entropy: verl's entropy_coeff weighs a bonus for it; 0 turns the bonus off",
    ]);
    expect(notes(['trainer.test_freq=0'])).toEqual([
      'note: trainer.test_freq is 0, so the run never validates, not even before training as trainer.val_before_train asks (verl validates before training whatever test_freq is); set test_freq to N to validate every N iterations',
    ]);
    expect(notes(['trainer.test_freq=0', 'trainer.val_before_train=false'])).toEqual([]);
  });

  it("says supervised steps whose batch follows the actor's micro-batch change with it", () => {
    expect(settingNotes(config('sokoban-rl.yaml', ['micro_batch_size_per_gpu=8', 'warm_start.batch_size=null', 'expert_iteration.batch_size=null']))).toEqual([
      "note: warm_start.batch_size and expert_iteration.batch_size are null, so warm_start and expert_iteration take their batches of the actor's micro-batch (8): " +
        'changing the micro-batch changes them, and so the run, where the update alone would be the same; set warm_start.batch_size and expert_iteration.batch_size to keep them',
    ]);
    // The shipped configs name their warm start's batch: a smaller micro-batch leaves it as it was.
    expect(settingNotes(config('sokoban-rl.yaml', ['micro_batch_size_per_gpu=8']))).toEqual([]);
    expect(settingNotes(config('base.yaml', ['warm_start.mode=expert', 'warm_start.steps=10']))).toEqual([]);
  });

  it('is logged as the run is prepared, before any run exists', async () => {
    const lines: string[] = [];
    await prepareRun(config('bandit.yaml', ['trainer.backend=wasm', 'micro_batch_size_per_gpu=64']), repoRoot, { log: (line) => lines.push(line) });
    expect(lines.filter((l) => l.startsWith('note: actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu (64)'))).toHaveLength(1);
  });
});
