import { parse as parseYaml } from 'yaml';
import { selectBackend } from '../backend';
import { MAX_ROLLOUT_EPISODES } from '../config/checks';
import { parseRunConfig } from '../config/load';
import type { RunConfig } from '../config/schema';
import { deriveSeed, Rng } from '../rng';
import { loadEnvSpecResolver } from '../rollout/env-specs';
import { EnvStateManager, type EnvSpecResolver } from '../rollout/es-manager';
import { createContextManager, rolloutSettingsFromConfig, runRollout } from '../rollout/rollout-loop';
import type { LanguageModel } from '../model/language-model';
import type { Tokenizer } from '../rollout/tokenizer';
import { checkpointVocabSize, loadCheckpoint, readCheckpointBase, readCheckpointConfig } from './checkpoint';
import { episodeReport } from './episode-report';
import { openPretrainedModels, usesPretrainedModel, verifyPretrainedCheckpoint } from './pretrained-models';
import { PolicyGenerator } from '../model/policy-generator';
import type { EpisodeReport } from './sink';
import { expectedModels } from './models';
import { optimalSuccessByTag } from './validation';
import { modelFolderName } from '../model/hf/load';

export interface EvaluationOptions {
  episodes?: number;
  seed?: number;
  overrides?: string[];
  log?: (line: string) => void;
  resolveSpec?: EnvSpecResolver;
}

export interface EvaluationResult {
  backend: string;
  device: string;
  iteration: number;
  episodes: number;
  /** `val/<tag>/...` metrics, plus `val/<tag>/optimal_success` where a solver exists. */
  metrics: Record<string, number>;
  /** The episodes played, at the checkpoint's iteration, for storing and replay. */
  episodeReports: EpisodeReport[];
  /** The config they were played with (the run's, with the overrides), as stored for re-simulation. */
  config: RunConfig;
}

/**
 * Plays a checkpoint's policy on validation episodes with the run's validation decoding:
 * `episodes` fresh start states from `seed` (default: the run's validation seeds), split evenly
 * over the validation tags.
 */
export async function evaluateCheckpoint(dir: string, options: EvaluationOptions = {}): Promise<EvaluationResult> {
  const base = parseRunConfig(parseYaml(readCheckpointConfig(dir)), `${dir}/config.yaml`, options.overrides ?? []);
  const cfg = withEvaluationEpisodes(base, options.episodes, options.seed);
  // Custom environments load from the module the run's config names (stored as an absolute path).
  const resolveSpec = options.resolveSpec ?? (await loadEnvSpecResolver(cfg, ['val']));
  const backend = await selectBackend(cfg.trainer.backend, options.log);
  if (usesPretrainedModel(cfg)) {
    verifyPretrainedCheckpoint(dir, cfg, { critic: false });
    const checkpoint = readCheckpointBase(dir);
    const models = await openPretrainedModels(cfg, { critic: false, reference: false }, { dir, base: checkpoint });
    try {
      return await play(cfg, models.policy, models.tokenizer, checkpoint.state.iteration, backend, options, resolveSpec);
    } finally {
      models.dispose();
    }
  }
  const loaded = loadCheckpoint(dir, expectedModels(cfg, checkpointVocabSize(dir)));
  try {
    return await play(cfg, loaded.policy, loaded.tokenizer, loaded.state.iteration, backend, options, resolveSpec);
  } finally {
    for (const model of [loaded.policy, loaded.critic, loaded.reference]) model?.dispose();
  }
}

/**
 * RAGEN's "before training" figure: a pretrained model folder, untrained, played on the
 * validation episodes of `cfg` (its actor_rollout_ref.model.path is set to `modelDir`).
 */
export async function evaluatePretrainedModel(modelDir: string, config: RunConfig, options: EvaluationOptions = {}): Promise<EvaluationResult> {
  const withModel: RunConfig = { ...config, actor_rollout_ref: { ...config.actor_rollout_ref, model: { ...config.actor_rollout_ref.model, path: modelDir } } };
  const cfg = withEvaluationEpisodes(withModel, options.episodes, options.seed);
  const resolveSpec = options.resolveSpec ?? (await loadEnvSpecResolver(cfg, ['val']));
  const backend = await selectBackend(cfg.trainer.backend, options.log);
  const models = await openPretrainedModels(cfg, { critic: false, reference: false });
  options.log?.(`model ${modelFolderName(models.folder)}: ${models.policy.parameterSummary()}`);
  try {
    return await play(cfg, models.policy, models.tokenizer, 0, backend, options, resolveSpec);
  } finally {
    models.dispose();
  }
}

async function play(
  cfg: RunConfig,
  policy: LanguageModel,
  tokenizer: Tokenizer,
  iteration: number,
  backend: { name: string; device: string },
  options: EvaluationOptions,
  resolveSpec: EnvSpecResolver,
): Promise<EvaluationResult> {
  const es = new EnvStateManager(cfg, 'val', { resolveSpec });
  const rollout = await runRollout({
    esManager: es,
    contextManager: createContextManager(cfg, tokenizer),
    tokenizer,
    generator: new PolicyGenerator(policy, new Rng(deriveSeed(cfg.trainer.seed, 'eval', options.seed ?? 0)), tokenizer.padId),
    settings: rolloutSettingsFromConfig(cfg, 'val'),
  });
  const metrics: Record<string, number> = { ...rollout.metrics };
  for (const [tag, value] of Object.entries(optimalSuccessByTag(cfg, resolveSpec))) metrics[`val/${tag}/optimal_success`] = value;
  return {
    backend: backend.name,
    device: backend.device,
    iteration,
    episodes: rollout.episodes.length,
    metrics,
    episodeReports: rollout.episodes.map((e) => episodeReport(e, iteration, false, null)),
    config: cfg,
  };
}

function withEvaluationEpisodes(cfg: RunConfig, episodes: number | undefined, seed: number | undefined): RunConfig {
  const val = cfg.es_manager.val;
  const tags = val.env_configs.tags;
  const total = episodes ?? val.env_groups * val.group_size;
  if (!Number.isInteger(total) || total < tags.length) {
    throw new RangeError(`--episodes must be an integer of at least ${tags.length} (one per validation tag), got ${episodes}`);
  }
  if (total > MAX_ROLLOUT_EPISODES) throw new RangeError(`--episodes must be at most ${MAX_ROLLOUT_EPISODES} (episodes played at once), got ${total}`);
  const perTag = tags.map((_, i) => Math.floor(total / tags.length) + (i < total % tags.length ? 1 : 0));
  return {
    ...cfg,
    es_manager: {
      ...cfg.es_manager,
      val: { ...val, env_groups: total, group_size: 1, start_seed: seed ?? val.start_seed, env_configs: { tags, n_groups: perTag } },
    },
  };
}
