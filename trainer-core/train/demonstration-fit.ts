/**
 * Warm-start demonstrations longer than the model's context, cut as the rollout cuts an episode
 * whose context is full: each keeps its turns up to the last whose training document still fits,
 * so the policy imitates only contexts it will ever be shown. A demonstration whose first reply
 * does not fit keeps nothing.
 */
import { ConfigError } from '../config/errors';
import type { EpisodeSequence } from '../rollout/episode-sequence';
import type { Demonstration } from './demonstrations';

export interface DemonstrationFit {
  demonstrations: Demonstration[];
  /** How many were cut (those left with nothing included). */
  cut: number;
  /** How many were left with no reply to imitate. */
  emptied: number;
  /** The longest training document among the cut ones: the context that would keep them whole. */
  longest: number;
}

/** Where each training document of a packed row starts and ends (exclusive). */
function documentSpans(documentIds: readonly number[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  documentIds.forEach((id, t) => {
    if (t === 0 || id !== documentIds[t - 1]) spans.push([t, t + 1]);
    else spans[spans.length - 1][1] = t + 1;
  });
  return spans;
}

/** Tokens of `sequence` to keep: all, or up to its last turn whose document fits `contextLength`. */
export function fittingLength(sequence: EpisodeSequence, contextLength: number): number {
  const tooLong = documentSpans(sequence.documentIds).find(([start, end]) => end - start > contextLength);
  if (!tooLong) return sequence.documentIds.length;
  // The first token past the context: every turn ending before it is kept.
  const first = tooLong[0] + contextLength;
  const kept = sequence.turnEnds.filter((end) => end < first);
  return kept.length > 0 ? kept[kept.length - 1] + 1 : 0;
}

function longestDocument(documentIds: readonly number[]): number {
  return Math.max(0, ...documentSpans(documentIds).map(([start, end]) => end - start));
}

function truncated(sequence: EpisodeSequence, length: number): EpisodeSequence {
  const turns = sequence.turnEnds.filter((end) => end < length).length;
  return {
    inputIds: sequence.inputIds.slice(0, length),
    lossMask: sequence.lossMask.slice(0, length),
    logprobs: sequence.logprobs.slice(0, length),
    turnEnds: sequence.turnEnds.slice(0, turns),
    turnNumbers: sequence.turnNumbers.slice(0, turns),
    tokenRewards: sequence.tokenRewards.slice(0, length),
    documentIds: sequence.documentIds.slice(0, length),
  };
}

export function fitDemonstrations(demonstrations: readonly Demonstration[], contextLength: number): DemonstrationFit {
  let cut = 0;
  let emptied = 0;
  let longest = 0;
  const kept: Demonstration[] = [];
  for (const demonstration of demonstrations) {
    const length = fittingLength(demonstration.sequence, contextLength);
    if (length === demonstration.sequence.inputIds.length) {
      kept.push(demonstration);
      continue;
    }
    cut++;
    longest = Math.max(longest, longestDocument(demonstration.sequence.documentIds));
    const sequence = truncated(demonstration.sequence, length);
    if (sequence.lossMask.some((m) => m === 1)) kept.push({ ...demonstration, sequence });
    else emptied++;
  }
  return { demonstrations: kept, cut, emptied, longest };
}

/** Whether a cut left some demonstration with a reply to imitate (none cut, or one kept a reply). */
export function keepsAReply(fit: DemonstrationFit): boolean {
  return fit.cut === 0 || fit.demonstrations.some((d) => d.sequence.lossMask.some((m) => m === 1));
}

const HOW_TO_FIX = 'raise model.context_length, or shorten the episodes (agent_proxy.max_turn, agent_proxy.max_context_window, the env\'s prompt)';

/** The one line a cut says, or null when nothing was cut. */
export function demonstrationFitWarning(fit: DemonstrationFit, total: number, contextLength: number): string | null {
  if (fit.cut === 0) return null;
  const emptied = fit.emptied > 0 ? ` (${fit.emptied} of them to nothing, and left out)` : '';
  return `warning: ${fit.cut} of ${total} warm-start demonstrations were longer than the model's context of ${contextLength} tokens (the longest needs ${fit.longest}) and were cut to the turns that fit${emptied}, as the rollout ends an episode whose context is full; ${HOW_TO_FIX}`;
}

/** The refusal of a warm start whose every demonstration was cut to nothing. */
export function noDemonstrationFits(fit: DemonstrationFit, contextLength: number): ConfigError {
  return new ConfigError([
    {
      path: ['model', 'context_length'],
      message: `no warm-start demonstration fits the model's context of ${contextLength} tokens (they need up to ${fit.longest}, and not one first reply fits): ${HOW_TO_FIX}`,
    },
  ]);
}
