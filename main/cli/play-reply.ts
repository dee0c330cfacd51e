import { matchActionName, parseResponse, violatesFormat, type ParsedResponse } from '../../trainer-core';

/**
 * A line of `turnlab play` that holds a whole model reply (`<think>...</think><answer>Left ||
 * Up</answer>`), read as the rollout reads one, so a researcher sees why a reply scored as it did.
 */
export function isWholeReply(line: string): boolean {
  return /<\/?(think|answer)>/.test(line);
}

export interface ReplyOptions {
  actionSep: string;
  maxActionsPerTurn: number;
  actionNames: readonly string[] | null;
}

/** The reply as the rollout reads it; with a `<think>` the reply must have both tags, as with agent_proxy.enable_think. */
export function readReply(line: string, options: ReplyOptions): ParsedResponse {
  return parseResponse(line, { ...options, enableThink: line.includes('<think>') });
}

/** What `turnlab play` prints of a reply before it plays the valid actions. */
export function describeReply(parsed: ParsedResponse, line: string, options: ReplyOptions): string {
  if (!parsed.formatOk) {
    const wanted = line.includes('<think>') ? '<think>...</think> then <answer>...</answer>' : '<answer>...</answer>';
    return `reply: no ${wanted} found, so no action is read (the rollout gives the format penalty and takes no step)`;
  }
  const parts = [`reply: answer "${parsed.answer}"`];
  const names = options.actionNames;
  const invalid = names ? parsed.actions.filter((action) => matchActionName(action, names) === null) : [];
  parts.push(parsed.actions.length === 0 ? 'no actions' : `actions ${parsed.validActions.join(', ') || 'none'} (${parsed.validActions.length} of ${parsed.actions.length} valid)`);
  if (invalid.length > 0) parts.push(`not actions: ${invalid.join(', ')}`);
  if (parsed.actionsCut > 0) parts.push(`${parsed.actionsCut} past max_actions_per_turn ${options.maxActionsPerTurn} dropped`);
  parts.push(violatesFormat(parsed) ? 'format penalty: yes' : 'format penalty: no');
  return parts.join('; ');
}
