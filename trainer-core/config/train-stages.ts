/**
 * A curriculum's stages (`es_manager.train.stages`): which envs the train rollouts play at an
 * iteration. Stage 0 is `es_manager.train.env_configs`, stage k the k-th entry of `stages`, each
 * from its `from_iteration` on; validation and the warm start always play their own envs.
 */
import type { EnvConfigsConfig, RunConfig } from './schema';

/** The stage playing at `iteration` (1-based, as the trainer counts): 0 before the first stage starts. */
export function trainStageAt(cfg: RunConfig, iteration: number): number {
  let stage = 0;
  cfg.es_manager.train.stages.forEach((s, i) => {
    if (iteration >= s.from_iteration) stage = i + 1;
  });
  return stage;
}

/** The env_configs of every stage, stage 0 first. */
export function trainStageEnvConfigs(cfg: RunConfig): EnvConfigsConfig[] {
  return [cfg.es_manager.train.env_configs, ...cfg.es_manager.train.stages.map((s) => s.env_configs)];
}

/**
 * The config of stage `stage`: its train split plays the stage's envs (what an env manager for
 * that stage is built from), and the actor's KL loss weighs the last `kl_loss_coef` set by this
 * stage or an earlier one (the actor's own before any).
 */
export function configForTrainStage(cfg: RunConfig, stage: number): RunConfig {
  if (stage === 0) return cfg;
  const envConfigs = trainStageEnvConfigs(cfg)[stage];
  if (!envConfigs) throw new RangeError(`the config has ${cfg.es_manager.train.stages.length} train stages after env_configs; there is no stage ${stage}`);
  const actor = cfg.actor_rollout_ref.actor;
  const klLossCoef = cfg.es_manager.train.stages.slice(0, stage).reduce((coef, s) => s.kl_loss_coef ?? coef, actor.kl_loss_coef);
  return {
    ...cfg,
    actor_rollout_ref: { ...cfg.actor_rollout_ref, actor: { ...actor, kl_loss_coef: klLossCoef } },
    es_manager: { ...cfg.es_manager, train: { ...cfg.es_manager.train, env_configs: envConfigs } },
  };
}

/** Every tag any train stage plays. */
export function trainStageTags(cfg: RunConfig): string[] {
  return [...new Set(trainStageEnvConfigs(cfg).flatMap((c) => c.tags))];
}
