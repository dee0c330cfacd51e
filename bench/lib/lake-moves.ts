/**
 * How well a FrozenLake policy's moves read the board, from stored turns: whether a move aims at
 * a hole, whether it aims closer to the goal, and the optimal policy's success after it against
 * the mean over the four moves (what the move is worth, Q*(s, a) - mean_a Q*(s, a), with the
 * moves left). A policy that learns raises the last towards the optimal move's; one whose
 * entropy falls while it stays near 0 has settled on moves the board does not justify.
 */
import { LAKE_ACTIONS, lakeMove, lakeSuccessProbability, parseLakeMap, slipDirections, type LakeMap } from '../../trainer-core/envs/frozen-lake';

export interface LakeTurn {
  /** The board as rendered (P player, _ frozen, O hole, G goal), one row a line. */
  observation: string;
  /** The move the reply named (Left, Down, Right, Up); anything else is skipped. */
  move: string;
  /** Moves the episode had left before this one. */
  movesLeft: number;
  /** The turn's mean advantage in its update, where stored. */
  advantage?: number | null;
}

/**
 * Turns where reading the holes matters and reading the goal is not enough: a "fork" has a
 * goal-ward move into a hole beside a goal-ward move that is safe; a "blocked" turn has only
 * goal-ward moves into holes. A policy that reads only where the goal is takes the hole at a
 * fork as often as the safe move, and walks into it on a blocked turn; `uniform` is what
 * uniform moves would give on the same turns.
 */
export interface HoleChoice {
  turns: number;
  intoHole: number;
  uniformIntoHole: number;
  /** Mean advantage of the goal-ward moves into a hole and of the rest, over the turns that have one. */
  holeAdvantage: number | null;
  otherAdvantage: number | null;
}

export interface LakeMoveStats {
  moves: number;
  aimAtHole: number;
  towardGoal: number;
  /** Mean of Q*(s, a) - mean_a Q*(s, a) over the moves played. */
  moveValue: number;
  /** The same for the best move of each state: what a policy reading the board perfectly would reach. */
  bestMoveValue: number;
  /** Moves as counts by name. */
  byMove: Record<string, number>;
  fork: HoleChoice;
  blocked: HoleChoice;
}

interface HoleTally {
  turns: number;
  intoHole: number;
  uniformIntoHole: number;
  advantage: { hole: [number, number]; other: [number, number] };
}

const newTally = (): HoleTally => ({ turns: 0, intoHole: 0, uniformIntoHole: 0, advantage: { hole: [0, 0], other: [0, 0] } });

function holeChoice(t: HoleTally): HoleChoice {
  const mean = ([sum, n]: [number, number]) => (n > 0 ? sum / n : null);
  return {
    turns: t.turns,
    intoHole: t.turns > 0 ? t.intoHole / t.turns : 0,
    uniformIntoHole: t.turns > 0 ? t.uniformIntoHole / t.turns : 0,
    holeAdvantage: mean(t.advantage.hole),
    otherAdvantage: mean(t.advantage.other),
  };
}

const TILE_OF: Record<string, string> = { P: 'S', _: 'F', O: 'H', G: 'G' };

/** The board with the player as the start, or null when the player is off it (in a hole, on the goal). */
function boardOf(observation: string): { map: LakeMap; player: number } | null {
  const rows = observation.split('\n').filter((line) => line.length > 0 && [...line].every((ch) => ch in TILE_OF));
  if (rows.length < 2 || rows.some((r) => r.length !== rows.length)) return null;
  const letters = rows.map((r) => [...r].map((ch) => TILE_OF[ch]).join(''));
  if (!letters.join('').includes('S') || !letters.join('').includes('G')) return null;
  return { map: parseLakeMap(letters), player: letters.join('').indexOf('S') };
}

/** Slippery Q*: the optimal policy's success after moving `action` from `cell` with `movesLeft` moves. */
function optimalMoveValue(map: LakeMap, cell: number, action: number, movesLeft: number): number {
  return slipDirections(action).reduce((q, d) => q + lakeSuccessProbability(map, lakeMove(map.size, cell, d), true, movesLeft - 1) / 3, 0);
}

export function lakeMoveStats(turns: readonly LakeTurn[]): LakeMoveStats {
  const out = { moves: 0, aimAtHole: 0, towardGoal: 0, moveValue: 0, bestMoveValue: 0, byMove: {} as Record<string, number> };
  const tallies = { fork: newTally(), blocked: newTally() };
  for (const turn of turns) {
    const action = (LAKE_ACTIONS as readonly string[]).indexOf(turn.move);
    const board = action < 0 ? null : boardOf(turn.observation);
    if (!board) continue;
    const { map, player } = board;
    const goal = map.tiles.indexOf('G');
    const distance = (cell: number) => Math.abs(Math.floor(cell / map.size) - Math.floor(goal / map.size)) + Math.abs((cell % map.size) - (goal % map.size));
    const q = LAKE_ACTIONS.map((_, a) => optimalMoveValue(map, player, a, turn.movesLeft));
    const meanQ = q.reduce((s, x) => s + x, 0) / q.length;
    const target = lakeMove(map.size, player, action);
    out.moves++;
    if (map.tiles[target] === 'H') out.aimAtHole++;
    if (distance(target) < distance(player)) out.towardGoal++;
    out.moveValue += q[action] - meanQ;
    out.bestMoveValue += Math.max(...q) - meanQ;
    out.byMove[turn.move] = (out.byMove[turn.move] ?? 0) + 1;
    const goalwardHole = LAKE_ACTIONS.map((_, a) => {
      const cell = lakeMove(map.size, player, a);
      return distance(cell) < distance(player) ? map.tiles[cell] === 'H' : null;
    });
    const holes = goalwardHole.filter((h) => h === true).length;
    if (holes === 0) continue;
    const tally = goalwardHole.includes(false) ? tallies.fork : tallies.blocked;
    const tookHole = goalwardHole[action] === true;
    tally.turns++;
    tally.uniformIntoHole += holes / LAKE_ACTIONS.length;
    if (tookHole) tally.intoHole++;
    if (typeof turn.advantage === 'number') {
      const slot = tookHole ? tally.advantage.hole : tally.advantage.other;
      slot[0] += turn.advantage;
      slot[1]++;
    }
  }
  if (out.moves > 0) {
    out.aimAtHole /= out.moves;
    out.towardGoal /= out.moves;
    out.moveValue /= out.moves;
    out.bestMoveValue /= out.moves;
  }
  return { ...out, fork: holeChoice(tallies.fork), blocked: holeChoice(tallies.blocked) };
}
