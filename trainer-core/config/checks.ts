import type { ConfigIssue } from './errors';
import type { EnvConfigsConfig, RunConfig } from './schema';
import { closestKey } from './schema-walk';

/**
 * Most episodes one rollout (or evaluation) plays at once. Every episode's environment and
 * record is built up front: a hundred million exhausted Node's heap after a minute and aborted
 * with a native stack trace instead of a message.
 */
export const MAX_ROLLOUT_EPISODES = 100_000;

/** Rules that span several keys, checked once each key has the right type. */
export function crossFieldIssues(cfg: RunConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const split of ['train', 'val'] as const) {
    issues.push(...envConfigsIssues(cfg, ['es_manager', split, 'env_configs'], cfg.es_manager[split].env_configs, cfg.es_manager[split].env_groups));
    const { env_groups: groups, group_size: size } = cfg.es_manager[split];
    if (groups * size > MAX_ROLLOUT_EPISODES) {
      issues.push({
        path: ['es_manager', split, 'env_groups'],
        message: `\`es_manager.${split}.env_groups\` (${groups}) x \`group_size\` (${size}) is ${groups * size} episodes a rollout; at most ${MAX_ROLLOUT_EPISODES}`,
      });
    }
  }
  issues.push(...trainStagesIssues(cfg));
  if (cfg.actor_rollout_ref.model.path !== null && cfg.model.path !== null) {
    issues.push({
      path: ['model', 'path'],
      message:
        '`model.path` (a TurnLab checkpoint to start from) and `actor_rollout_ref.model.path` (a Hugging Face model folder) are both set; ' +
        'keep one: null `model.path` to start from the pretrained model',
    });
  }
  if (cfg.actor_rollout_ref.model.lora_rank > 0 && cfg.actor_rollout_ref.model.path === null) {
    // Silently ignored otherwise: the run would train every weight of TurnLab's own model.
    issues.push({
      path: ['actor_rollout_ref', 'model', 'lora_rank'],
      message:
        '`actor_rollout_ref.model.lora_rank` adds LoRA adapters to a pretrained Hugging Face model, and `actor_rollout_ref.model.path` is null (TurnLab\'s own model, which trains every weight); ' +
        'set the model folder, or lora_rank to 0',
    });
  }
  if (cfg.actor_rollout_ref.actor.aux_value_coef > 0 && cfg.actor_rollout_ref.model.path !== null) {
    issues.push({
      path: ['actor_rollout_ref', 'actor', 'aux_value_coef'],
      message:
        '`actor_rollout_ref.actor.aux_value_coef` puts a value head on TurnLab\'s own model, and `actor_rollout_ref.model.path` loads a Hugging Face model; ' +
        'set aux_value_coef to 0 (a critic of its own comes with `algorithm.adv_estimator: gae`)',
    });
  }
  const { dagger_rounds: daggerRounds, mode: warmStartMode, steps: warmStartSteps } = cfg.warm_start;
  if (cfg.trainer.total_training_steps === 0 && (warmStartMode === 'none' || warmStartSteps === 0) && cfg.expert_iteration.rounds === 0) {
    issues.push({
      path: ['trainer', 'total_training_steps'],
      message:
        '`trainer.total_training_steps` is 0 and there is no warm start, so the run would train nothing; give 1 or more (or a `warm_start` to train the warm start alone)',
    });
  }
  if (daggerRounds > 0 && warmStartMode !== 'expert') {
    issues.push({
      path: ['warm_start', 'dagger_rounds'],
      message: `\`warm_start.dagger_rounds\` labels boards with the solver's moves, so it needs \`warm_start.mode: expert\` (it is ${warmStartMode}); set dagger_rounds to 0 or mode to expert`,
    });
  } else if (daggerRounds >= warmStartSteps && daggerRounds > 0) {
    issues.push({
      path: ['warm_start', 'dagger_rounds'],
      message: `\`warm_start.dagger_rounds\` (${daggerRounds}) must be below \`warm_start.steps\` (${warmStartSteps}): each round comes after some steps of training`,
    });
  }
  if (cfg.expert_iteration.rounds > 0 && cfg.expert_iteration.prune_revisits && cfg.agent_proxy.max_context_window !== 1) {
    issues.push({
      path: ['expert_iteration', 'prune_revisits'],
      message:
        "`expert_iteration.prune_revisits` cuts turns out of solved episodes, which leaves each later prompt as it was only with a one-turn context; " +
        `set agent_proxy.max_context_window to 1 (it is ${cfg.agent_proxy.max_context_window}) or prune_revisits to false`,
    });
  }
  const { tries } = cfg.expert_iteration;
  const train = cfg.es_manager.train;
  if (cfg.expert_iteration.rounds > 0 && train.env_configs.n_groups.some((n) => (n * train.group_size) % tries !== 0)) {
    const envs = train.env_configs.n_groups.map((n) => n * train.group_size).join(', ');
    issues.push({
      path: ['expert_iteration', 'tries'],
      message:
        `\`expert_iteration.tries\` (${tries}) splits each rollout's envs (es_manager.train n_groups x group_size: ${envs}) into groups that play one start state, ` +
        'so it must divide each of them; choose a divisor such as ' + train.group_size,
    });
  }
  if (cfg.expert_iteration.rounds > 0 && cfg.expert_iteration.drop_all_solved && tries === 1) {
    issues.push({
      path: ['expert_iteration', 'drop_all_solved'],
      message: '`expert_iteration.drop_all_solved` drops the start states every try solved, which with `expert_iteration.tries: 1` is every solved one; set tries to 8 or drop_all_solved to false',
    });
  }
  if (cfg.expert_iteration.rounds > 0 && cfg.expert_iteration.think === 'hindsight' && !cfg.agent_proxy.enable_think) {
    issues.push({
      path: ['expert_iteration', 'think'],
      message: '`expert_iteration.think: hindsight` rewrites the thinking of kept replies, and agent_proxy.enable_think is false so they have none; set enable_think to true or think to sampled',
    });
  }
  if (cfg.warm_start.expert_think === 'plan' && (warmStartMode !== 'expert' || !cfg.agent_proxy.enable_think)) {
    issues.push({
      path: ['warm_start', 'expert_think'],
      message:
        "`warm_start.expert_think: plan` writes the solver's solution inside <think>, so it needs `warm_start.mode: expert` and `agent_proxy.enable_think: true`; " +
        'set expert_think to empty or turn both on',
    });
  }
  if (cfg.algorithm.bi_level_gae && cfg.algorithm.adv_estimator !== 'gae') {
    issues.push({
      path: ['algorithm', 'bi_level_gae'],
      message: `\`algorithm.bi_level_gae\` is RAGEN's bi-level GAE, which only \`adv_estimator: gae\` reads (it is ${cfg.algorithm.adv_estimator}); set bi_level_gae to false or adv_estimator to gae`,
    });
  }
  if (cfg.model.d_model % cfg.model.n_head !== 0) {
    issues.push({
      path: ['model', 'n_head'],
      message: `\`model.d_model\` (${cfg.model.d_model}) must be a multiple of \`model.n_head\` (${cfg.model.n_head})`,
    });
  }
  if (cfg.actor_rollout_ref.actor.clip_ratio_low >= 1) {
    issues.push({
      path: ['actor_rollout_ref', 'actor', 'clip_ratio_low'],
      message: '`actor_rollout_ref.actor.clip_ratio_low` must be below 1 (the ratio is clipped to 1 - clip_ratio_low)',
    });
  }
  const workers = cfg.trainer.workers;
  if (workers !== 'auto' && workers > 1) {
    if (cfg.trainer.backend === 'webgpu' || cfg.trainer.backend === 'tensorflow') {
      issues.push({
        path: ['trainer', 'workers'],
        message: `\`trainer.workers\` ${workers} runs CPU backends in threads; with \`trainer.backend\` ${cfg.trainer.backend} the device does the work: use 1 or auto`,
      });
    }
  }
  return issues;
}

/** Tags and group counts of one `env_configs`: one count per tag, adding up to the split's groups, every tag defined. */
function envConfigsIssues(cfg: RunConfig, path: Array<string | number>, envConfigs: EnvConfigsConfig, envGroups: number): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const key = path.join('.');
  const groupsKey = `${path.slice(0, 2).join('.')}.env_groups`;
  const { tags, n_groups } = envConfigs;
  if (tags.length !== n_groups.length) {
    issues.push({
      path: [...path, 'n_groups'],
      message: `\`${key}.n_groups\` has ${n_groups.length} entries but \`${key}.tags\` has ${tags.length}; give one group count per tag`,
    });
  }
  const total = n_groups.reduce((sum, n) => sum + n, 0);
  if (total !== envGroups) {
    const stage = path.length > 3;
    issues.push({
      path: stage ? [...path, 'n_groups'] : [...path.slice(0, 2), 'env_groups'],
      message: stage
        ? `\`${key}.n_groups\` adds up to ${total} but \`${groupsKey}\` is ${envGroups}; a stage plays as many groups as the split, so make them equal`
        : `\`${groupsKey}\` is ${envGroups} but \`env_configs.n_groups\` adds up to ${total}; make them equal`,
    });
  }
  const tagNames = Object.keys(cfg.custom_envs);
  tags.forEach((tag, i) => {
    if (!Object.prototype.hasOwnProperty.call(cfg.custom_envs, tag)) {
      const hint = closestKey(tag, tagNames);
      issues.push({
        path: [...path, 'tags', i],
        message: `tag \`${tag}\` in \`${key}.tags\` is not defined under \`custom_envs\`` + (hint !== undefined ? `; did you mean \`${hint}\`?` : ''),
      });
    }
  });
  return issues;
}

/** The curriculum's stages: each an `env_configs` of its own, in order of the iteration they start at. */
function trainStagesIssues(cfg: RunConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const train = cfg.es_manager.train;
  train.stages.forEach((stage, i) => {
    const path = ['es_manager', 'train', 'stages', i];
    const previous = i === 0 ? 1 : train.stages[i - 1].from_iteration;
    if (stage.from_iteration <= previous) {
      issues.push({
        path: [...path, 'from_iteration'],
        message:
          i === 0
            ? `\`es_manager.train.stages.0.from_iteration\` is 1, where \`es_manager.train.env_configs\` already plays; start the first stage at 2 or later, or put its envs in env_configs`
            : `\`es_manager.train.stages.${i}.from_iteration\` is ${stage.from_iteration}, not after stage ${i - 1}'s ${previous}; list the stages in the order they start`,
      });
    }
    issues.push(...envConfigsIssues(cfg, [...path, 'env_configs'], stage.env_configs, train.env_groups));
    if (stage.kl_loss_coef !== undefined && !cfg.actor_rollout_ref.actor.use_kl_loss) {
      issues.push({
        path: [...path, 'kl_loss_coef'],
        message: `\`es_manager.train.stages.${i}.kl_loss_coef\` weighs the actor's KL loss, which \`actor_rollout_ref.actor.use_kl_loss\` turns off; set use_kl_loss to true or drop the stage's kl_loss_coef`,
      });
    }
  });
  return issues;
}
