/**
 * Whether a new run's warm start can imitate anything in its model's context, asked before the
 * run is recorded: the trainer builds its demonstrations only once it has started, so a context
 * too short for one first reply used to leave a `failed` run behind for a config mistake.
 */
import type { RunConfig } from '../config/schema';
import type { EnvSpecResolver } from '../rollout/es-manager';
import { createContextManager } from '../rollout/rollout-loop';
import { deriveSeed, Rng } from '../rng';
import { fitTokenizer } from '../model/tokenizer';
import type { Tokenizer } from '../rollout/tokenizer';
import { fitDemonstrations, keepsAReply, noDemonstrationFits, type DemonstrationFit } from './demonstration-fit';
import { demonstrationRounds } from './demonstrations';
import { fitRunTokenizer } from './models';
import { hasDemonstrations } from './session';

/**
 * Plays one round of the warm start's demonstrations and refuses, as the trainer would, when not
 * one of them has a first reply that fits `model.context_length`. Only TurnLab's own model
 * trained from scratch: a pretrained one's context is its folder's.
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

/** One round of the warm start's demonstrations, tokenized by `tokenizer`, cut to the model's context. */
function roundFit(cfg: RunConfig, tokenizer: Tokenizer, resolveSpec?: EnvSpecResolver): DemonstrationFit {
  const { play } = demonstrationRounds({ cfg, cm: createContextManager(cfg, tokenizer), tokenizer, rng: new Rng(deriveSeed(cfg.trainer.seed, 'demonstrations')), resolveSpec });
  return fitDemonstrations(play(), cfg.model.context_length);
}
