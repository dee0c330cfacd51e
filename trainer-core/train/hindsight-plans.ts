import type { RunConfig } from '../config/schema';
import type { ContextTurn } from '../rollout/context-manager';
import type { TurnRecord } from '../rollout/rollout-loop';
import type { PromptTemplate } from '../rollout/templates';
import type { Tokenizer } from '../rollout/tokenizer';
import { formatReply } from './demonstrations';

/**
 * A solved episode's kept turns with each reply rewritten in hindsight (`expert_iteration.think:
 * hindsight`): the thinking becomes the moves the episode went on to play from that turn, this
 * turn's and every later kept turn's, and the answer the moves this turn played. A reply sampled
 * at temperature 1 can think one plan and play another; fitted as written, its plan teaches a
 * path the episode never took, where the warm start's plans were the solver's own. Rewritten,
 * every plan is a solution the environment confirmed from that board, and nothing comes from a
 * solver. Each turn's reward stays as played (the rewritten turn plays the same moves).
 */
export function hindsightTurns(
  kept: readonly ContextTurn[],
  played: readonly Pick<TurnRecord, 'turn' | 'executedActions'>[],
  cfg: RunConfig,
  template: PromptTemplate,
  tokenizer: Tokenizer,
): ContextTurn[] {
  const moves = kept.map((turn) => {
    const record = played.find((t) => t.turn === turn.turn);
    if (!record) throw new Error(`hindsight plans: turn ${turn.turn} of a solved episode has no played record`);
    return record.executedActions;
  });
  return kept.map((turn, i) => {
    const text = formatReply(template, cfg, moves[i], moves.slice(i).flat().join(' '));
    const ids = [...tokenizer.encode(text), tokenizer.endOfTurnId];
    return { ...turn, reply: { generatedIds: ids, logprobs: ids.map(() => 0), text, reward: turn.reply?.reward ?? 0 } };
  });
}

/** Kept turns whose sampled thinking already was the moves played from there on (in hindsight's spelling). */
export function plansKept(sampled: readonly ContextTurn[], hindsight: readonly ContextTurn[]): number {
  return sampled.filter((turn, i) => turn.reply?.text === hindsight[i].reply?.text).length;
}
