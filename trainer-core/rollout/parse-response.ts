/**
 * Reading a model reply the way RAGEN does: `<think>...</think>` then `<answer>...</answer>`
 * anywhere in the text (the first such pair), tags and chat markers inside removed, the answer
 * split on the action separator, at most
 * `maxActionsPerTurn` actions kept, action names matched case-insensitively and unknown ones
 * dropped. Pure, so the trainer, the replay view and the tests read replies identically.
 */

export interface ParseOptions {
  enableThink: boolean;
  actionSep: string;
  maxActionsPerTurn: number;
  /** Valid action names; null when actions are free text (equations, answers). */
  actionNames: readonly string[] | null;
}

export interface ParsedResponse {
  think: string;
  answer: string;
  /** Actions as written, after cutting to `maxActionsPerTurn`. */
  actions: string[];
  /** Those of `actions` that name a valid action, in canonical spelling, in order. */
  validActions: string[];
  /** The reply had the required tags. */
  formatOk: boolean;
  /** Actions cut because there were more than `maxActionsPerTurn`. */
  actionsCut: number;
}

const THINK_ANSWER = /<think>([\s\S]*?)<\/think>\s*<answer>([\s\S]*?)<\/answer>/;
const ANSWER_ONLY = /<answer>([\s\S]*?)<\/answer>/;
// RAGEN removes these from the thinking and the answer, so a reply that repeats a tag the prompt
// opened (`<answer><answer>Left</answer>`) or carries a chat marker still reads.
const SPECIAL_TOKENS = /<\/?think>|<\/?answer>|<\|im_start\|>|<\|im_end\|>/g;
const clean = (text: string) => text.replace(SPECIAL_TOKENS, '').trim();

export function parseResponse(text: string, options: ParseOptions): ParsedResponse {
  const match = (options.enableThink ? THINK_ANSWER : ANSWER_ONLY).exec(text);
  if (!match) return { think: '', answer: '', actions: [], validActions: [], formatOk: false, actionsCut: 0 };
  const think = options.enableThink ? clean(match[1]) : '';
  const answer = clean(options.enableThink ? match[2] : match[1]);
  const written = answer
    .split(options.actionSep)
    .map((action) => action.trim())
    .filter((action) => action !== '');
  const actions = written.slice(0, options.maxActionsPerTurn);
  return {
    think,
    answer,
    actions,
    validActions: matchActionNames(actions, options.actionNames),
    formatOk: true,
    actionsCut: written.length - actions.length,
  };
}

/** Canonical names of the actions that match one case-insensitively; free-text envs keep all. */
export function matchActionNames(actions: readonly string[], actionNames: readonly string[] | null): string[] {
  if (actionNames === null) return [...actions];
  const byLower = new Map(actionNames.map((name) => [name.toLowerCase(), name]));
  const out: string[] = [];
  for (const action of actions) {
    const name = byLower.get(action.toLowerCase());
    if (name !== undefined) out.push(name);
  }
  return out;
}

/** RAGEN's rule: a turn with any unknown action, or none valid at all, costs the format penalty. */
export function violatesFormat(parsed: ParsedResponse): boolean {
  return parsed.validActions.length === 0 || parsed.validActions.length !== parsed.actions.length;
}
