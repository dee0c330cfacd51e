/**
 * What the held-out episodes a policy fails look like, for the failures a solver shows could
 * have been solved within the budget: is the policy stuck (the same observation turn after turn,
 * a move that changes nothing played again and again), does it revisit a board, or does it keep
 * moving and run out of budget? A stuck failure is a mistake the policy repeats on its own
 * unchanged board, which is what a turn-level signal could correct and an episode-level one
 * spreads over every turn alike.
 */

export interface PlayedEpisode {
  success: boolean;
  /** The observation each turn was shown, in order. */
  observations: readonly string[];
}

export interface FailureKinds {
  episodes: number;
  solved: number;
  /** Episodes the solver finishes within the budget. */
  solvable: number;
  /** Of those, failed by the policy. */
  solvableFailed: number;
  /** Of those, with at least `stuckTurns` turns on an observation unchanged from the turn before. */
  stuck: number;
  /** Of those, with some observation seen twice (a loop or a move that changed nothing). */
  revisited: number;
  /** Turns of the solvable failures shown the same observation as the turn before. */
  unchangedTurns: number;
  failedTurns: number;
  /** The same in the solved episodes. */
  solvedUnchangedTurns: number;
  solvedTurns: number;
  /** Solvable failures by the solver's solution length. */
  failedBySolutionLength: Map<number, number>;
}

function unchangedTurns(observations: readonly string[]): number {
  let n = 0;
  for (let i = 1; i < observations.length; i++) if (observations[i] === observations[i - 1]) n++;
  return n;
}

/** `solutionLengths[i]`: the solver's moves for episode i's start state, null where it has none within `budgets[i]`. */
export function failureKinds(episodes: readonly PlayedEpisode[], solutionLengths: readonly (number | null)[], stuckTurns = 3): FailureKinds {
  if (solutionLengths.length !== episodes.length) throw new RangeError(`${episodes.length} episodes but ${solutionLengths.length} solution lengths`);
  const kinds: FailureKinds = {
    episodes: episodes.length,
    solved: 0,
    solvable: 0,
    solvableFailed: 0,
    stuck: 0,
    revisited: 0,
    unchangedTurns: 0,
    failedTurns: 0,
    solvedUnchangedTurns: 0,
    solvedTurns: 0,
    failedBySolutionLength: new Map(),
  };
  episodes.forEach((episode, i) => {
    const unchanged = unchangedTurns(episode.observations);
    if (episode.success) {
      kinds.solved++;
      kinds.solvedUnchangedTurns += unchanged;
      kinds.solvedTurns += episode.observations.length;
    }
    const length = solutionLengths[i];
    if (length === null) return;
    kinds.solvable++;
    if (episode.success) return;
    kinds.solvableFailed++;
    kinds.failedBySolutionLength.set(length, (kinds.failedBySolutionLength.get(length) ?? 0) + 1);
    kinds.unchangedTurns += unchanged;
    kinds.failedTurns += episode.observations.length;
    if (unchanged >= stuckTurns) kinds.stuck++;
    if (new Set(episode.observations).size < episode.observations.length) kinds.revisited++;
  });
  return kinds;
}

/** One action of a failed episode, replayed: did it change the state, and how far the goal was after it. */
export interface ReplayedAction {
  changed: boolean;
  /** The solver's moves to the goal after the action; null when it finds none. */
  distanceAfter: number | null;
}

/**
 * The action that lost a solvable episode: the first after which the goal was further than the
 * actions left (or out of the solver's reach). `kind` says whether it changed nothing (a move
 * into a wall) or moved to a state the budget cannot finish from; `noOpsBefore` counts the
 * actions before it that changed nothing. Null when the replay never lost the room (the episode
 * ended for another reason, such as its turns or a bad format).
 */
export interface FatalAction {
  index: number;
  kind: 'no-op' | 'move';
  noOpsBefore: number;
}

export function fatalAction(actions: readonly ReplayedAction[], budget: number): FatalAction | null {
  let noOps = 0;
  for (let i = 0; i < actions.length; i++) {
    const { changed, distanceAfter } = actions[i];
    const left = budget - i - 1;
    if (distanceAfter === null || distanceAfter > left) return { index: i, kind: changed ? 'move' : 'no-op', noOpsBefore: noOps };
    if (!changed) noOps++;
  }
  return null;
}
