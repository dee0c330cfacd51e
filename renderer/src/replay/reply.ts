// Splitting a model reply into its think and answer parts for display, and marking which of
// its parsed actions the environment accepted. Pure, so the view and the tests read alike.

export type ReplyPartKind = 'think' | 'answer' | 'text';

export interface ReplyPart {
  kind: ReplyPartKind;
  /** The part's text without its tags. */
  text: string;
  /** False when the reply ended before the closing tag (a cut reply). */
  closed: boolean;
}

const OPENING = /<(think|answer)>/g;

/**
 * Splits `prefix + reply` into think, answer and loose text parts, in order. `prefix` is the
 * text the prompt ended with and the model continued (the compact template's `<answer>`), so a
 * reply that starts mid-answer is still read as one. Empty loose text is dropped.
 */
export function splitReply(reply: string, prefix = ''): ReplyPart[] {
  const text = prefix + reply;
  const parts: ReplyPart[] = [];
  const pushText = (chunk: string) => {
    if (chunk.trim() !== '') parts.push({ kind: 'text', text: chunk, closed: true });
  };
  let position = 0;
  OPENING.lastIndex = 0;
  for (;;) {
    OPENING.lastIndex = position;
    const open = OPENING.exec(text);
    if (!open) break;
    pushText(text.slice(position, open.index));
    const kind = open[1] as 'think' | 'answer';
    const bodyStart = open.index + open[0].length;
    const close = text.indexOf(`</${kind}>`, bodyStart);
    if (close < 0) {
      parts.push({ kind, text: text.slice(bodyStart).trim(), closed: false });
      position = text.length;
      break;
    }
    parts.push({ kind, text: text.slice(bodyStart, close).trim(), closed: true });
    position = close + kind.length + 3;
  }
  pushText(text.slice(position));
  return parts;
}

export interface MarkedAction {
  text: string;
  /** True: an action the env knows; false: one it does not; null: cannot tell. */
  valid: boolean | null;
}

/**
 * Marks each parsed action valid or not. With the env's action names known, an action is valid
 * when it names one, ignoring case (as the rollout parser matches them); free-text envs
 * (`null` names) accept every action. Without the names, only the stored count can tell: all
 * valid or none valid; anything between is marked unknown rather than guessed.
 */
export function markActions(actions: readonly string[], numValidActions: number, actionNames: readonly string[] | null | undefined): MarkedAction[] {
  if (actionNames === null) return actions.map((text) => ({ text, valid: true }));
  if (actionNames !== undefined) {
    const known = new Set(actionNames.map((name) => name.toLowerCase()));
    return actions.map((text) => ({ text, valid: known.has(text.toLowerCase()) }));
  }
  if (numValidActions === actions.length) return actions.map((text) => ({ text, valid: true }));
  if (numValidActions === 0) return actions.map((text) => ({ text, valid: false }));
  return actions.map((text) => ({ text, valid: null }));
}

/** The return accumulated up to and including each turn. */
export function runningReturns(rewards: readonly number[]): number[] {
  let total = 0;
  return rewards.map((reward) => (total += reward));
}
