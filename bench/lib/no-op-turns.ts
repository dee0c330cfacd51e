/**
 * How a run's training episodes use the moves that change nothing (a move into a wall): how often
 * the turn right after one plays another (the policy repeating itself on its unchanged board, what
 * `agent_proxy.show_unchanged` names in the prompt), and which advantage the update gave each kind
 * of turn. A turn changed nothing when the next turn was shown the same observation; the last
 * turn of an episode has no next one and is left out.
 */

export interface TrainedTurn {
  observation: string;
  /** The advantage the update used for the turn; null when the turn was not trained (filtered out). */
  advantage: number | null;
}

export interface TurnKind {
  turns: number;
  /** Sum of the advantages of the trained ones among them, and how many were trained. */
  advantageSum: number;
  trained: number;
}

export interface NoOpTurns {
  episodes: number;
  solved: number;
  /** Turns that changed the observation. */
  moved: TurnKind;
  /** Turns that changed nothing, the turn before having changed something (or being the first). */
  firstNoOp: TurnKind;
  /** Turns that changed nothing right after a turn that changed nothing. */
  repeatedNoOp: TurnKind;
  /** Turns right after a turn that changed nothing, whatever they did. */
  afterNoOp: number;
}

const kind = (): TurnKind => ({ turns: 0, advantageSum: 0, trained: 0 });

export function emptyNoOpTurns(): NoOpTurns {
  return { episodes: 0, solved: 0, moved: kind(), firstNoOp: kind(), repeatedNoOp: kind(), afterNoOp: 0 };
}

/** Adds one episode's turns to `into`. */
export function addNoOpTurns(into: NoOpTurns, turns: readonly TrainedTurn[], success: boolean): NoOpTurns {
  into.episodes++;
  if (success) into.solved++;
  let afterNoOp = false;
  for (let k = 0; k + 1 < turns.length; k++) {
    const noOp = turns[k + 1].observation === turns[k].observation;
    if (afterNoOp) into.afterNoOp++;
    const target = !noOp ? into.moved : afterNoOp ? into.repeatedNoOp : into.firstNoOp;
    target.turns++;
    const advantage = turns[k].advantage;
    if (advantage !== null) {
      target.advantageSum += advantage;
      target.trained++;
    }
    afterNoOp = noOp;
  }
  return into;
}

/** Share of the turns after a no-op that changed nothing again. */
export function repeatShare(t: NoOpTurns): number {
  return t.afterNoOp === 0 ? 0 : t.repeatedNoOp.turns / t.afterNoOp;
}

export function meanAdvantage(k: TurnKind): number | null {
  return k.trained === 0 ? null : k.advantageSum / k.trained;
}
