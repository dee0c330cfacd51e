import { parse as parseYaml } from 'yaml';
import { selectBackend } from '../backend';
import { parseRunConfig } from '../config/load';
import type { RunConfig } from '../config/schema';
import { deriveSeed, Rng } from '../rng';
import { loadEnvSpecResolver } from '../rollout/env-specs';
import { EnvStateManager, type EnvSpecResolver } from '../rollout/es-manager';
import { createContextManager, rolloutSettingsFromConfig, runRollout } from '../rollout/rollout-loop';
import { checkpointVocabSize, loadCheckpoint, readCheckpointConfig } from './checkpoint';
import { episodeReport } from './episode-report';
import { PolicyGenerator } from './policy-generator';
import type { EpisodeReport } from './sink';
import { expectedModels } from './trainer';
import { optimalSuccessByTag } from './validation';

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
export async function evaluateCheckpoint(
  dir: string,
  options: { episodes?: number; seed?: number; overrides?: string[]; log?: (line: string) => void; resolveSpec?: EnvSpecResolver } = {},
): Promise<EvaluationResult> {
  const base = parseRunConfig(parseYaml(readCheckpointConfig(dir)), `${dir}/config.yaml`, options.overrides ?? []);
  const cfg = withEvaluationEpisodes(base, options.episodes, options.seed);
  // Custom environments load from the module the run's config names (stored as an absolute path).
  const resolveSpec = options.resolveSpec ?? (await loadEnvSpecResolver(cfg, ['val']));
  const backend = await selectBackend(cfg.trainer.backend, options.log);
  const loaded = loadCheckpoint(dir, expectedModels(cfg, checkpointVocabSize(dir)));
  try {
    const es = new EnvStateManager(cfg, 'val', { resolveSpec });
    const rollout = await runRollout({
      esManager: es,
      contextManager: createContextManager(cfg, loaded.tokenizer),
      tokenizer: loaded.tokenizer,
      generator: new PolicyGenerator(loaded.policy, new Rng(deriveSeed(cfg.trainer.seed, 'eval', options.seed ?? 0)), loaded.tokenizer.padId),
      settings: rolloutSettingsFromConfig(cfg, 'val'),
    });
    const metrics: Record<string, number> = { ...rollout.metrics };
    for (const [tag, value] of Object.entries(optimalSuccessByTag(cfg, resolveSpec))) metrics[`val/${tag}/optimal_success`] = value;
    const iteration = loaded.state.iteration;
    return {
      backend: backend.name,
      device: backend.device,
      iteration,
      episodes: rollout.episodes.length,
      metrics,
      episodeReports: rollout.episodes.map((e) => episodeReport(e, iteration, false, null)),
      config: cfg,
    };
  } finally {
    for (const model of [loaded.policy, loaded.critic, loaded.reference]) model?.dispose();
  }
}

function withEvaluationEpisodes(cfg: RunConfig, episodes: number | undefined, seed: number | undefined): RunConfig {
  const val = cfg.es_manager.val;
  const tags = val.env_configs.tags;
  const total = episodes ?? val.env_groups * val.group_size;
  if (!Number.isInteger(total) || total < tags.length) {
    throw new RangeError(`--episodes must be an integer of at least ${tags.length} (one per validation tag), got ${episodes}`);
  }
  const perTag = tags.map((_, i) => Math.floor(total / tags.length) + (i < total % tags.length ? 1 : 0));
  return {
    ...cfg,
    es_manager: {
      ...cfg.es_manager,
      val: { ...val, env_groups: total, group_size: 1, start_seed: seed ?? val.start_seed, env_configs: { tags, n_groups: perTag } },
    },
  };
}
