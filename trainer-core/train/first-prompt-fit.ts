/**
 * Whether every env's first prompt leaves the model room for a reply, asked before a run is
 * recorded: otherwise a board too large for the context (a 32x32 lake in 512 tokens) is found at
 * the first rollout, and leaves a `failed` run behind for a config mistake.
 */
import { ConfigError } from '../config/errors';
import type { RunConfig } from '../config/schema';
import type { EnvSpecResolver, EnvStateManager } from '../rollout/es-manager';
import { createContextManager, firstContextTurn, replyRoom } from '../rollout/rollout-loop';
import type { Tokenizer } from '../rollout/tokenizer';
import { fitTokenizer } from '../model/tokenizer';
import { fitRunTokenizer } from './models';

export interface PromptRoom {
  tag: string;
  split: string;
  /** Tokens of the tag's shortest first prompt. */
  promptTokens: number;
  /** Tokens a reply may take, as the rollout reckons it (replyRoom). */
  room: number;
}

/**
 * Per env tag of `es` (whose episodes have been reset), the roomiest first prompt; of those, the
 * tightest. A tag none of whose envs can play a first turn is a config mistake; one long prompt
 * among many (a long math question) is not, and the rollout cuts that episode alone.
 */
export function tightestFirstPrompt(cfg: RunConfig, es: EnvStateManager, tokenizer: Tokenizer, contextLength: number): PromptRoom | null {
  const cm = createContextManager(cfg, tokenizer);
  const roomiest = new Map<string, PromptRoom>();
  for (const entry of es.entries) {
    const turns = [firstContextTurn(es, entry.envId)];
    const promptTokens = cm.contextIds(entry.prompt, turns).length;
    const room = replyRoom(cm, entry.prompt, turns, promptTokens, contextLength);
    const best = roomiest.get(entry.tag);
    if (best === undefined || room > best.room) roomiest.set(entry.tag, { tag: entry.tag, split: es.split, promptTokens, room });
  }
  let tightest: PromptRoom | null = null;
  for (const tag of roomiest.values()) if (tightest === null || tag.room < tightest.room) tightest = tag;
  return tightest;
}

/** How the context's length came about, as the errors say it. */
export function contextLimitText(cfg: RunConfig, contextLength: number): string {
  return contextLength < cfg.model.context_length
    ? `the model's max_position_embeddings ${contextLength}, below model.context_length ${cfg.model.context_length}`
    : `model.context_length ${contextLength}`;
}

/** The context a run's prompts must fit, and its tokenizers to count them with, cheapest first. */
export interface PromptTokenizers {
  contextLength: number;
  /** Each an upper bound of the next; the last is the run's own. */
  candidates: Array<() => Tokenizer>;
}

/**
 * How a new run's first prompts are counted: a model trained from scratch with bytes first, an
 * upper bound of its fitted tokenizer (which takes seconds to fit on a long config), fitted once
 * for every split and stage, as the trainer fits it; a pretrained one with its folder's tokenizer
 * and context. A run that starts from a checkpoint (`model.path`) is not asked (null): its
 * tokenizer is read with its weights.
 */
export function promptTokenizers(
  cfg: RunConfig,
  resolveSpec: EnvSpecResolver,
  pretrained: { tokenizer: Tokenizer; maxPositionEmbeddings: number } | null,
): PromptTokenizers | null {
  if (pretrained) return { contextLength: Math.min(cfg.model.context_length, pretrained.maxPositionEmbeddings), candidates: [() => pretrained.tokenizer] };
  if (cfg.model.path) return null;
  let fitted: Tokenizer | undefined;
  return { contextLength: cfg.model.context_length, candidates: [() => fitTokenizer([]), () => (fitted ??= fitRunTokenizer(cfg, resolveSpec))] };
}

/** Refuses when no env of some tag of `es` has a first prompt that leaves room for a reply. */
export function checkFirstPromptsFit(cfg: RunConfig, es: EnvStateManager, tokenizers: PromptTokenizers | null): void {
  if (tokenizers === null) return;
  const { contextLength } = tokenizers;
  let tightest: PromptRoom | null = null;
  for (const tokenizer of tokenizers.candidates) {
    tightest = tightestFirstPrompt(cfg, es, tokenizer(), contextLength);
    if (tightest === null || tightest.room >= 1) return;
  }
  if (tightest === null) return;
  throw new ConfigError([
    {
      path: ['custom_envs', tightest.tag, 'env_config'],
      message:
        `custom_envs.${tightest.tag}: no ${tightest.split} episode of this tag can play a turn: its shortest first prompt is ${tightest.promptTokens} tokens and leaves no room for a reply in ` +
        `${contextLimitText(cfg, contextLength)}; raise model.context_length (a pretrained model's own limit is its max_position_embeddings), ` +
        `or shorten the observation (custom_envs.${tightest.tag}.env_config, e.g. a smaller board${cfg.agent_proxy.template === 'compact' ? '' : ', or agent_proxy.template: compact'})`,
    },
  ]);
}
