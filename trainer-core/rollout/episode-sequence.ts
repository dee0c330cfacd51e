import type { Segment } from './context-manager';

/**
 * One token sequence per episode holding all its turns, ready for the trainer: the training
 * documents of the context manager packed in order (one document without a context window);
 * the loss mask is 1 exactly on tokens the policy generated, turn boundaries are each turn's
 * last generated token (never inferred from rewards), and token-level rewards sit either on the
 * episode's last generated token or on each turn's last generated token.
 */

export interface EpisodeSequence {
  inputIds: number[];
  /** 1 on generated tokens, 0 on prompt, observation and filler tokens. */
  lossMask: number[];
  /** Sampling log-probability at generated positions, 0 elsewhere. */
  logprobs: number[];
  /** Position of each shown turn's last generated token, in order. */
  turnEnds: number[];
  /** 1-based turn number of each entry of `turnEnds`. */
  turnNumbers: number[];
  tokenRewards: number[];
  /** Training document of each token (see ContextManager.trainingDocuments). */
  documentIds: number[];
}

export function emptyEpisodeSequence(): EpisodeSequence {
  return { inputIds: [], lossMask: [], logprobs: [], turnEnds: [], turnNumbers: [], tokenRewards: [], documentIds: [] };
}

export type RewardPlacement =
  /** The whole episode's reward on its last generated token (RAGEN's default). */
  | { mode: 'episode-end'; total: number }
  /** Reward of turn n on turn n's last generated token (`use_turn_scores`); keyed by turn number. */
  | { mode: 'turn-ends'; perTurn: ReadonlyMap<number, number> };

export function buildEpisodeSequence(documents: readonly (readonly Segment[])[], placement: RewardPlacement): EpisodeSequence {
  const inputIds: number[] = [];
  const lossMask: number[] = [];
  const logprobs: number[] = [];
  const turnEnds: number[] = [];
  const turnNumbers: number[] = [];
  const documentIds: number[] = [];
  documents.forEach((segments, document) => {
    for (const segment of segments) addSegment(segment);
    while (documentIds.length < inputIds.length) documentIds.push(document);
  });
  return { inputIds, lossMask, logprobs, turnEnds, turnNumbers, tokenRewards: placeRewards(inputIds.length, turnEnds, turnNumbers, placement), documentIds };

  function addSegment(segment: Segment): void {
    if (segment.kind === 'prompt') {
      for (const id of segment.ids) {
        inputIds.push(id);
        lossMask.push(0);
        logprobs.push(0);
      }
      return;
    }
    if (segment.ids.length === 0) throw new Error(`turn ${segment.turn} has no generated tokens`);
    if (segment.logprobs.length !== segment.ids.length) {
      throw new Error(`turn ${segment.turn}: ${segment.ids.length} generated ids but ${segment.logprobs.length} logprobs`);
    }
    segment.ids.forEach((id, i) => {
      inputIds.push(id);
      lossMask.push(1);
      logprobs.push(segment.logprobs[i]);
    });
    turnEnds.push(inputIds.length - 1);
    turnNumbers.push(segment.turn);
  }
}

export function placeRewards(
  length: number,
  turnEnds: readonly number[],
  turnNumbers: readonly number[],
  placement: RewardPlacement,
): number[] {
  const rewards = new Array<number>(length).fill(0);
  if (turnEnds.length === 0) return rewards;
  if (placement.mode === 'episode-end') {
    rewards[turnEnds[turnEnds.length - 1]] = placement.total;
  } else {
    turnEnds.forEach((position, i) => {
      rewards[position] = placement.perTurn.get(turnNumbers[i]) ?? 0;
    });
  }
  return rewards;
}
