/**
 * `--set` overrides that shrink configs/frozenlake-nonslip.yaml to a run that trains in seconds;
 * the warm start teaches the answer format. Train boards all start from the corner, so episodes
 * resimulate on gym's layout. Add `trainer.total_training_steps=N`.
 */
export const TINY_LAKE_OVERRIDES = [
  'trainer.backend=wasm',
  'model.n_layer=1',
  'model.d_model=32',
  'model.d_ff=64',
  'actor_rollout_ref.actor.ppo_epochs=1',
  'warm_start.steps=40',
  'warm_start.lr=0.01',
  'es_manager.train.env_groups=2',
  'es_manager.train.group_size=2',
  'es_manager.train.env_configs.tags=[FrozenLakeNonSlip]',
  'es_manager.train.env_configs.n_groups=[2]',
  'es_manager.val.env_groups=2',
  'es_manager.val.env_configs.n_groups=[2]',
  'trainer.test_freq=1',
  'ppo_mini_batch_size=4',
  'micro_batch_size_per_gpu=2',
];

/**
 * The same shrunk FrozenLake with a pretrained policy from `modelDir` (scripts/hf-random-model):
 * every logit row spans the tokenizer's vocabulary, so replies and episodes are one short turn
 * and nothing validates. Add the LoRA settings and `trainer.total_training_steps=N`.
 */
export function tinyPretrainedLake(modelDir: string): string[] {
  return [
    ...TINY_LAKE_OVERRIDES,
    `actor_rollout_ref.model.path=${modelDir}`,
    'actor_rollout_ref.rollout.response_length=3',
    'agent_proxy.max_turn=1',
    'warm_start.mode=none',
    'trainer.val_before_train=false',
    'trainer.test_freq=0',
  ];
}
