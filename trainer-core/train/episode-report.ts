import type { EpisodeRecord } from '../rollout/rollout-loop';
import type { EpisodeReport, TurnReport } from './sink';

/**
 * A played episode as a sink stores it. `advantageMeans` (null for validation and evaluation
 * episodes) is keyed by the turns' order in the episode's training sequence.
 */
export function episodeReport(e: EpisodeRecord, iteration: number, filteredOut: boolean, advantageMeans: number[] | null): EpisodeReport {
  const turnIndex = new Map(e.sequence.turnNumbers.map((turn, i) => [turn, i]));
  const turns: TurnReport[] = e.turns.map((t, i) => {
    const shown = turnIndex.get(t.turn);
    return {
      turnIndex: i,
      observation: t.observationBefore,
      state: t.stateBefore,
      response: t.responseText,
      actions: t.parsed.actions,
      numValidActions: t.parsed.validActions.length,
      reward: t.reward,
      done: t.done,
      info: t.info,
      numTokens: t.generatedIds.length,
      logprobSum: t.logprobs.reduce((a, b) => a + b, 0),
      advantageMean: advantageMeans && shown !== undefined ? advantageMeans[shown] : null,
    };
  });
  return {
    iteration,
    split: e.split,
    envTag: e.tag,
    groupId: e.groupId,
    envIndex: e.envId,
    seed: e.seed,
    totalReward: e.score,
    success: e.success,
    numTurns: e.turns.length,
    numActions: e.numActions,
    truncated: e.endReason !== 'env-done',
    filteredOut,
    turns,
  };
}
