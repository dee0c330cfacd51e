/**
 * How well a Sokoban policy's moves read the board, from stored turns: the share of moves on a
 * shortest solution (the breadth-first solver's distance falls by one), the share a policy moving
 * at random would have on the same boards, the share that wedge the box (a solvable room becomes
 * unsolvable) and that change nothing (into a wall), and the mean advantage the update gave the
 * shortest-path moves and the others. A policy that learns raises the first above the second;
 * an update that carries the board's signal gives the shortest-path moves the higher advantage.
 * The solver is a diagnosis only: nothing here reaches the training.
 */
import { parseRoom, solveSokoban, type SokobanRoom } from '../../trainer-core/envs/sokoban';
import { SOKOBAN_ACTIONS, stepCell, WALL } from '../../trainer-core/envs/sokoban/room';

export interface SokobanTurn {
  /** The board as rendered (# wall, _ floor, O target, X box, √ box on target, P player, S player on target). */
  observation: string;
  /** The move the reply named (Up, Down, Left, Right); anything else is skipped. */
  move: string;
  /** The mean advantage the update gave the turn, or null when it was not trained on. */
  advantage: number | null;
}

export interface SokobanMoveStats {
  moves: number;
  /** Share of the moves played that are on a shortest solution. */
  shortestPath: number;
  /** The same share for a move drawn at random on the same boards. */
  shortestPathAtRandom: number;
  /** Share of the moves that leave a solvable room unsolvable. */
  wedges: number;
  /** Share of the moves that change nothing (into a wall or a box that cannot move). */
  ineffective: number;
  /** Mean advantage of the trained shortest-path moves and of the other trained moves (null without any). */
  advantageShortest: number | null;
  advantageOther: number | null;
  byMove: Record<string, number>;
}

/** The room after `dir` (an index into SOKOBAN_ACTIONS); the same room when the move is blocked. */
export function sokobanStep(room: SokobanRoom, dir: number): SokobanRoom {
  const next = stepCell(room.rows, room.cols, room.player, dir);
  if (next < 0 || room.terrain[next] === WALL) return room;
  const boxIndex = room.boxes.indexOf(next);
  if (boxIndex < 0) return { ...room, player: next };
  const beyond = stepCell(room.rows, room.cols, next, dir);
  if (beyond < 0 || room.terrain[beyond] === WALL || room.boxes.includes(beyond)) return room;
  const boxes = room.boxes.slice();
  boxes[boxIndex] = beyond;
  return { ...room, player: next, boxes };
}

/** A board without its ring of wall reads the same: a cell off the board blocks like a wall. */
function roomOf(observation: string): SokobanRoom | null {
  const lines = observation.split('\n').filter((line) => line.length > 0);
  try {
    return parseRoom(lines);
  } catch {
    return null;
  }
}

export function sokobanMoveStats(turns: readonly SokobanTurn[]): SokobanMoveStats {
  const distances = new Map<string, number>();
  const distance = (room: SokobanRoom): number => {
    const key = `${room.player}/${room.boxes.join(',')}/${room.terrain.join('')}`;
    let d = distances.get(key);
    if (d === undefined) {
      d = solveSokoban(room)?.length ?? Infinity;
      distances.set(key, d);
    }
    return d;
  };
  const out: SokobanMoveStats = { moves: 0, shortestPath: 0, shortestPathAtRandom: 0, wedges: 0, ineffective: 0, advantageShortest: null, advantageOther: null, byMove: {} };
  const advantage = { shortest: [0, 0], other: [0, 0] };
  for (const turn of turns) {
    const dir = (SOKOBAN_ACTIONS as readonly string[]).indexOf(turn.move);
    const room = dir < 0 ? null : roomOf(turn.observation);
    if (!room) continue;
    const d = distance(room);
    if (d === 0 || d === Infinity) continue; // solved, or already lost: no move is better than another
    const onPath = SOKOBAN_ACTIONS.map((_, a) => distance(sokobanStep(room, a)) === d - 1);
    const after = sokobanStep(room, dir);
    out.moves++;
    out.byMove[turn.move] = (out.byMove[turn.move] ?? 0) + 1;
    if (onPath[dir]) out.shortestPath++;
    out.shortestPathAtRandom += onPath.filter(Boolean).length / onPath.length;
    if (distance(after) === Infinity) out.wedges++;
    if (after === room) out.ineffective++;
    if (turn.advantage !== null) {
      const slot = onPath[dir] ? advantage.shortest : advantage.other;
      slot[0] += turn.advantage;
      slot[1]++;
    }
  }
  if (out.moves > 0) {
    out.shortestPath /= out.moves;
    out.shortestPathAtRandom /= out.moves;
    out.wedges /= out.moves;
    out.ineffective /= out.moves;
  }
  out.advantageShortest = advantage.shortest[1] > 0 ? advantage.shortest[0] / advantage.shortest[1] : null;
  out.advantageOther = advantage.other[1] > 0 ? advantage.other[0] / advantage.other[1] : null;
  return out;
}
