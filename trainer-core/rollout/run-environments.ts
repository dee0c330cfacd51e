import type { RunConfig } from '../config/schema';
import { configForTrainStage } from '../config/train-stages';
import { EnvConfigError } from '../envs/errors';
import { loadEnvSpecResolver } from './env-specs';
import { EnvStateManager, type EnvSpecResolver } from './es-manager';

/** `random-valid` demonstrations pick among an env's named actions: a free-text env has none. */
function checkWarmStartMode(cfg: RunConfig, es: EnvStateManager): void {
  if (cfg.warm_start.mode !== 'random-valid' || cfg.warm_start.steps === 0) return;
  const freeText = es.entries.find((entry) => !entry.prompt.actionNames || entry.prompt.actionNames.length === 0);
  if (freeText) {
    throw new EnvConfigError(
      `warm_start.mode: random-valid picks among named actions, but env tag '${freeText.tag}' takes free text; use warm_start.mode: expert (or none)`,
    );
  }
}

/**
 * The environments of a run, each split's and curriculum stage's built with their options and
 * reset once: a custom module that does not load, options the schema takes that make no board (a
 * Sokoban room too small for its boxes), a free-text env under a random-valid warm start, found
 * before a run exists. A sweep asks it of every setting before any run starts.
 */
export async function startRunEnvironments(
  cfg: RunConfig,
  baseDir: string,
  options: { resuming?: boolean } = {},
): Promise<{ resolveSpec: EnvSpecResolver; started: Array<{ splitCfg: RunConfig; es: EnvStateManager }> }> {
  const resolveSpec = await loadEnvSpecResolver(cfg, ['train', 'val'], baseDir);
  // Every curriculum stage's train envs are built too, so a bad one fails now rather than mid-run.
  const builds = [
    { split: 'train' as const, splitCfg: cfg, key: 'es_manager.train' },
    { split: 'val' as const, splitCfg: cfg, key: 'es_manager.val' },
    ...cfg.es_manager.train.stages.map((_, i) => ({ split: 'train' as const, splitCfg: configForTrainStage(cfg, i + 1), key: `es_manager.train.stages.${i}` })),
  ];
  const started: Array<{ splitCfg: RunConfig; es: EnvStateManager }> = [];
  for (const { split, splitCfg, key } of builds) {
    let es: EnvStateManager;
    try {
      // With turn shaping the train envs' start is measured too, as the trainer measures it.
      es = new EnvStateManager(splitCfg, split, { resolveSpec, potentials: split === 'train' && cfg.algorithm.turn_shaping !== null });
    } catch (error) {
      if (error instanceof EnvConfigError) throw error;
      throw new EnvConfigError(`${key}: the environments cannot be built: ${error instanceof Error ? error.message : String(error)}`);
    }
    // Options the schema takes may still make no board (a Sokoban room too small for its boxes):
    // one reset of each split's envs finds that now, not after the run is recorded.
    try {
      es.reset();
    } catch (error) {
      const tags = splitCfg.es_manager[split].env_configs.tags.map((tag) => `custom_envs.${tag}.env_config`).join(', ');
      throw new EnvConfigError(`${key}: the environments cannot start an episode: ${error instanceof Error ? error.message : String(error)} (their options: ${tags})`);
    }
    if (splitCfg === cfg && split === 'train' && !options.resuming) checkWarmStartMode(cfg, es);
    started.push({ splitCfg, es });
  }
  return { resolveSpec, started };
}

