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
