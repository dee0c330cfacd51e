import { type RunConfig, type HfModelFolder, type BackendChoice, type EnvSpecResolver, startRunEnvironments } from '../../trainer-core';
import { selectBackend, checkpointVocabSize, verifyCheckpoint, refuseWarmStartPolicy, expectedModels, openHfModelFolder, checkWarmStartFits, checkOwnModelFits, checkFirstPromptsFit, promptTokenizers, wasmMemoryWarning, settingNotes } from '../../trainer-core/compute';

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
  const { resolveSpec, started } = await startRunEnvironments(cfg, baseDir, options);
  // A model too large for this machine's memory, said before the run exists.
  checkOwnModelFits(cfg);
  // A context too short for one demonstrated reply, said before the run exists (a resumed run warmed up already).
  if (!options.resuming) checkWarmStartFits(cfg, resolveSpec);
  // A new run that starts from another run's policy checks that checkpoint now, not after its
  // row exists (a resumed run continues from its own checkpoint and ignores model.path).
  if (cfg.model.path && !options.resuming) refuseWarmStartPolicy(cfg.model.path, verifyCheckpoint(cfg.model.path, { policy: expectedModels(cfg, checkpointVocabSize(cfg.model.path)).policy, critic: null }));
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
