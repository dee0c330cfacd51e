import { type RunConfig, type HfModelFolder, type BackendChoice, EnvConfigError, loadEnvSpecResolver, EnvStateManager, type EnvSpecResolver, configForTrainStage } from '../../trainer-core';
import { selectBackend, checkpointVocabSize, verifyCheckpoint, expectedModels, openHfModelFolder, checkWarmStartFits, checkOwnModelFits, checkFirstPromptsFit, promptTokenizers, wasmMemoryWarning, settingNotes } from '../../trainer-core/compute';

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

export interface PreparedRun {
  resolveSpec: EnvSpecResolver;
  backend: BackendChoice;
}

/**
 * Everything a run needs that can fail on the user's input, done before any run row exists or
 * any stored iteration is removed: the environments (custom modules imported and probed, each
 * split's envs built with their options), a `model.path` checkpoint verified, and the compute
 * backend started. A failure here
 * leaves the store as it was, so no run is left `queued` forever.
 */
export async function prepareRun(
  cfg: RunConfig,
  baseDir: string,
  options: { log?: (line: string) => void; resuming?: boolean } = {},
): Promise<PreparedRun> {
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
  // A model too large for this machine's memory, said before the run exists.
  checkOwnModelFits(cfg);
  // A context too short for one demonstrated reply, said before the run exists (a resumed run warmed up already).
  if (!options.resuming) checkWarmStartFits(cfg, resolveSpec);
  // A new run that starts from another run's policy checks that checkpoint now, not after its
  // row exists (a resumed run continues from its own checkpoint and ignores model.path).
  if (cfg.model.path && !options.resuming) verifyCheckpoint(cfg.model.path, { policy: expectedModels(cfg, checkpointVocabSize(cfg.model.path)).policy, critic: null });
  // A pretrained model's folder is read (config and tokenizer, not the weights) before the run exists.
  const pretrainedPath = cfg.actor_rollout_ref.model.path;
  let pretrained: { tokenizer: HfModelFolder['tokenizer']; maxPositionEmbeddings: number } | null = null;
  if (pretrainedPath !== null) {
    try {
      const folder = await openHfModelFolder(pretrainedPath);
      pretrained = { tokenizer: folder.tokenizer, maxPositionEmbeddings: folder.config.maxPositionEmbeddings };
    } catch (error) {
      // Said as resume and the run form say it: the key the user gave, then what is wrong.
      if (error instanceof Error && error.name === 'HfModelError') error.message = `actor_rollout_ref.model.path: ${error.message}`;
      throw error;
    }
  }
  // A board too large for the context, said before the run exists (a resumed run played its prompts).
  if (!options.resuming) {
    const tokenizers = promptTokenizers(cfg, resolveSpec, pretrained);
    for (const { splitCfg, es } of started) checkFirstPromptsFit(splitCfg, es, tokenizers);
  }
  const backend = await selectBackend(cfg.trainer.backend, options.log);
  const heapWarning = backend.name === 'wasm' ? wasmMemoryWarning(cfg) : null;
  if (heapWarning !== null) options.log?.(heapWarning);
  for (const note of settingNotes(cfg, { resuming: options.resuming })) options.log?.(note);
  return { resolveSpec, backend };
}
