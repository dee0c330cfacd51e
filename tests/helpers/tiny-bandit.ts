/** `--set` overrides that shrink configs/bandit.yaml to a tiny model and few episodes on wasm. */
export const TINY_BANDIT_OVERRIDES = [
  'trainer.backend=wasm',
  'model.n_layer=1',
  'model.d_model=32',
  'model.d_ff=64',
  'es_manager.train.env_groups=2',
  'es_manager.train.env_configs.n_groups=[2]',
  'es_manager.train.group_size=4',
  'es_manager.val.env_groups=4',
  'es_manager.val.env_configs.n_groups=[4]',
  'ppo_mini_batch_size=4',
  'micro_batch_size_per_gpu=2',
  'warm_start.steps=5',
];
