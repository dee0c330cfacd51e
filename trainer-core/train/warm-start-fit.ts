/**
 * Whether a new run's warm start can imitate anything in its model's context, asked before the
 * run is recorded: the trainer builds its demonstrations only once it has started, so a context
 * too short for one first reply used to leave a `failed` run behind for a config mistake.
 */
import type { RunConfig } from '../config/schema';
import { EnvStateManager, type EnvSpecResolver } from '../rollout/es-manager';
import { createContextManager } from '../rollout/rollout-loop';
import { deriveSeed, Rng } from '../rng';
import { fitTokenizer } from '../model/tokenizer';
import type { Tokenizer } from '../rollout/tokenizer';
import { fitDemonstrations, noDemonstrationFits, type DemonstrationFit } from './demonstration-fit';
import { distinctStartsConfig, playDemonstrations, type Demonstration, type DemonstrationMode } from './demonstrations';
import { fitRunTokenizer } from './models';
import { hasDemonstrations } from './session';

/**
 * Plays one round of the warm start's demonstrations with the run's own tokenizer and refuses, as
 * the trainer would, when not one of them has a first reply that fits `model.context_length`.
 * Only TurnLab's own model trained from scratch: a pretrained one's context is its folder's.
 */
export function checkWarmStartFits(cfg: RunConfig, resolveSpec?: EnvSpecResolver): void {
  if (!hasDemonstrations(cfg) || cfg.model.path || cfg.actor_rollout_ref.model.path !== null) return;
  // The run's tokenizer reads whole words as one token where bytes alone take several, so a reply
  // that fits byte by byte fits with it: fitting that tokenizer (seconds on a long config) is
  // needed only where the bytes do not fit.
  if (keepsAReply(roundFit(cfg, fitTokenizer([]), resolveSpec))) return;
  const fit = roundFit(cfg, fitRunTokenizer(cfg, resolveSpec), resolveSpec);
  if (!keepsAReply(fit)) throw noDemonstrationFits(fit, cfg.model.context_length);
}

/** One round of the warm start's demonstrations, tokenized by `tokenizer`. */
function playOneRound(cfg: RunConfig, tokenizer: Tokenizer, resolveSpec?: EnvSpecResolver): Demonstration[] {
  const playCfg = cfg.warm_start.episodes === null ? cfg : distinctStartsConfig(cfg);
  const es = new EnvStateManager(playCfg, 'train', { resolveSpec });
  es.restoreState({ resetCount: 1_000_000 });
  return playDemonstrations({
    cfg: playCfg,
    es,
    cm: createContextManager(cfg, tokenizer),
    tokenizer,
    mode: cfg.warm_start.mode as DemonstrationMode,
    rng: new Rng(deriveSeed(cfg.trainer.seed, 'demonstrations')),
  });
}

/** One round's demonstrations cut to the model's context. */
function roundFit(cfg: RunConfig, tokenizer: Tokenizer, resolveSpec?: EnvSpecResolver): DemonstrationFit {
  return fitDemonstrations(playOneRound(cfg, tokenizer, resolveSpec), cfg.model.context_length);
}

/** Whether any demonstration keeps a reply to imitate, as the trainer's warm start asks. */
function keepsAReply(fit: DemonstrationFit): boolean {
  return fit.cut === 0 || fit.demonstrations.some((d) => d.sequence.lossMask.some((m) => m === 1));
}
