import type { Tokenizer } from './tokenizer';
import type { ChatMessage, EnvPromptInfo, PromptTemplate } from './templates';
import { parseResponse, type ParsedResponse } from './parse-response';

/**
 * Builds what the model reads, turn by turn, from the episode so far. The token context is a
 * concatenation of separately encoded prompt pieces and the ids the model actually generated;
 * the same pieces make the training sequence, so the policy is trained on exactly the tokens it
 * sampled, in exactly the context it sampled them in (RAGEN instead re-tokenizes rebuilt text).
 */

export interface ContextTurn {
  /** 1-based turn number. */
  turn: number;
  observation: string;
  actionsLeft: number;
  /** The previous turn's actions when they left the observation as it was (shown with `agent_proxy.show_unchanged`). */
  unchangedBy?: readonly string[];
  /** Filled once the model has replied to this turn. */
  reply?: TurnReply;
}

export interface TurnReply {
  /** The ids the model generated, its end-of-turn id included when it produced one. */
  generatedIds: readonly number[];
  /** Sampling log-probabilities, one per generated id. */
  logprobs: readonly number[];
  /** Decoded reply without the end-of-turn id. */
  text: string;
  /**
   * The turn's reward as shown to the model at the next turn: the environment's, as RAGEN shows
   * it; the format penalty is kept apart (it trains, but the prompt does not state it).
   */
  reward: number;
}

/**
 * The turn after `before`, given what its reply did. Actions that changed nothing (a move into a
 * wall) are remembered, so the prompt can say so where the window no longer shows the last state.
 */
export function nextContextTurn(
  before: Pick<ContextTurn, 'observation'>,
  outcome: { turn: number; observation: string; executedActions: readonly string[] },
  actionsLeft: number,
): ContextTurn {
  const next: ContextTurn = { turn: outcome.turn + 1, observation: outcome.observation, actionsLeft };
  if (outcome.executedActions.length > 0 && outcome.observation === before.observation) next.unchangedBy = [...outcome.executedActions];
  return next;
}

export type Segment =
  | { kind: 'prompt'; ids: number[]; text: string }
  | { kind: 'generated'; ids: number[]; logprobs: number[]; turn: number; text: string };

export interface ContextManagerOptions {
  /** Keep only the last k turns in the prompt; null keeps all. */
  maxContextWindow: number | null;
  enableThink: boolean;
  actionSep: string;
  maxActionsPerTurn: number;
}

export class ContextManager {
  constructor(
    readonly template: PromptTemplate,
    private readonly tokenizer: Tokenizer,
    private readonly options: ContextManagerOptions,
  ) {}

  /** Index into `turns` of the first turn shown when the episode has `count` turns. */
  windowStart(count: number): number {
    const k = this.options.maxContextWindow;
    return k === null ? 0 : Math.max(0, count - k);
  }

  /**
   * The episode as segments. When the last turn has no reply yet, the segments are the context
   * the model continues from; otherwise they are the whole (windowed) episode for training.
   */
  segments(env: EnvPromptInfo, turns: readonly ContextTurn[]): Segment[] {
    if (turns.length === 0) throw new Error('ContextManager.segments needs at least one turn');
    const t = this.template;
    const start = this.windowStart(turns.length);
    const out: Segment[] = [];
    let pending = (t.system() !== null ? t.messageStart('system') + t.system() + t.messageEnd('system') : '') +
      t.messageStart('user') + t.envPrefix(env);
    for (let i = start; i < turns.length; i++) {
      const turn = turns[i];
      if (i > start) {
        const previous = turns[i - 1].reply as TurnReply;
        pending += t.afterReply + t.messageStart('user') + t.rewardText(previous.reward);
      }
      pending += t.turnText(turn) + t.messageEnd('user') + t.messageStart('assistant') + t.responsePrefix;
      out.push(this.prompt(pending));
      pending = '';
      if (!turn.reply) {
        if (i !== turns.length - 1) throw new Error(`turn ${turn.turn} has no reply but later turns exist`);
        break;
      }
      out.push(...this.replySegments(turn));
    }
    return out;
  }

  /**
   * The episode as training documents, packed into one row for the trainer. Without a context
   * window that is one document, the whole episode. With one, every turn is its own document:
   * the window the model saw when it replied, then its reply. Earlier replies inside a window are
   * context there (each is trained in its own document), so every generated token is trained
   * once, in exactly the context it was sampled in, and no turn is left out of training.
   */
  trainingDocuments(env: EnvPromptInfo, turns: readonly ContextTurn[]): Segment[][] {
    if (this.options.maxContextWindow === null) return [this.segments(env, turns)];
    return turns.map((turn, i) =>
      this.segments(env, turns.slice(0, i + 1)).map((segment): Segment =>
        segment.kind === 'generated' && segment.turn !== turn.turn ? { kind: 'prompt', ids: segment.ids, text: segment.text } : segment,
      ),
    );
  }

  /**
   * Tokens of the packed training row the episode makes so far, given the length of the
   * context the model continues from for the unanswered last turn; the model's context length
   * bounds it. Without a window that context is the whole row, so nothing is re-encoded.
   */
  trainingLength(env: EnvPromptInfo, turns: readonly ContextTurn[], contextLength: number): number {
    if (this.options.maxContextWindow === null || turns.length < 2) return contextLength;
    let length = contextLength;
    for (const document of this.trainingDocuments(env, turns.slice(0, -1))) {
      for (const segment of document) length += segment.ids.length;
    }
    return length;
  }

  /** Token ids the model continues from for the last (unanswered) turn. */
  contextIds(env: EnvPromptInfo, turns: readonly ContextTurn[]): number[] {
    return this.segments(env, turns).flatMap((segment) => segment.ids);
  }

  /** The same conversation as chat messages, for display and storage. */
  messages(env: EnvPromptInfo, turns: readonly ContextTurn[]): ChatMessage[] {
    const t = this.template;
    const start = this.windowStart(turns.length);
    const messages: ChatMessage[] = [];
    const system = t.system();
    if (system !== null) messages.push({ role: 'system', content: system });
    let user = t.envPrefix(env);
    for (let i = start; i < turns.length; i++) {
      if (i > start) user = t.rewardText((turns[i - 1].reply as TurnReply).reward);
      messages.push({ role: 'user', content: user + t.turnText(turns[i]) });
      const reply = turns[i].reply;
      if (reply) messages.push({ role: 'assistant', content: t.responsePrefix + reply.text });
    }
    return messages;
  }

  /** The flat text of the segments; a reply's end-of-turn token shows as the template's end marker. */
  flatText(env: EnvPromptInfo, turns: readonly ContextTurn[]): string {
    return this.segments(env, turns)
      .map((segment) => (segment.kind === 'generated' ? segment.text + this.template.endOfTurnText : segment.text))
      .join('');
  }

  parse(replyText: string, actionNames: readonly string[] | null): ParsedResponse {
    return parseResponse(this.template.responsePrefix + replyText, {
      enableThink: this.options.enableThink,
      actionSep: this.options.actionSep,
      maxActionsPerTurn: this.options.maxActionsPerTurn,
      actionNames,
    });
  }

  private prompt(text: string): Segment {
    return { kind: 'prompt', ids: this.tokenizer.encode(text), text };
  }

  /**
   * A reply cut at the token limit has no end-of-turn id; one is added as a prompt token (not
   * trained on) so the next turn's context is well-formed.
   */
  private replySegments(turn: ContextTurn): Segment[] {
    const reply = turn.reply as TurnReply;
    const generated: Segment = {
      kind: 'generated',
      ids: [...reply.generatedIds],
      logprobs: [...reply.logprobs],
      turn: turn.turn,
      text: reply.text,
    };
    const ended = reply.generatedIds[reply.generatedIds.length - 1] === this.tokenizer.endOfTurnId;
    return ended ? [generated] : [generated, { kind: 'prompt', ids: [this.tokenizer.endOfTurnId], text: '' }];
  }
}
