import { allBoxesOnTargets, SOKOBAN_ACTIONS, stepCell, WALL, type SokobanAction, type SokobanRoom } from './room';

/** Above this many visited states the search gives up; rooms of RAGEN's sizes need far fewer. */
export const DEFAULT_MAX_STATES = 2_000_000;

/**
 * Breadth-first search over (player, boxes): the shortest action sequence that puts every box on
 * a target, or null when there is none (or the search exceeds `maxStates`). Boxes are kept
 * sorted, so rooms that differ only in which box is where count as one state.
 */
export function solveSokoban(room: SokobanRoom, maxStates = DEFAULT_MAX_STATES): SokobanAction[] | null {
  const { rows, cols, terrain } = room;
  if (allBoxesOnTargets(terrain, room.boxes)) return [];
  const startBoxes = [...room.boxes].sort((a, b) => a - b);
  const players: number[] = [room.player];
  const boxSets: number[][] = [startBoxes];
  const parents: number[] = [-1];
  const moves: number[] = [-1];
  const seen = new Set<string>([key(room.player, startBoxes)]);
  for (let head = 0; head < players.length; head++) {
    const player = players[head];
    const boxes = boxSets[head];
    for (let dir = 0; dir < 4; dir++) {
      const next = stepCell(rows, cols, player, dir);
      if (next < 0 || terrain[next] === WALL) continue;
      let nextBoxes = boxes;
      const boxIndex = boxes.indexOf(next);
      if (boxIndex >= 0) {
        const beyond = stepCell(rows, cols, next, dir);
        if (beyond < 0 || terrain[beyond] === WALL || boxes.includes(beyond)) continue;
        nextBoxes = boxes.slice();
        nextBoxes[boxIndex] = beyond;
        nextBoxes.sort((a, b) => a - b);
      }
      const k = key(next, nextBoxes);
      if (seen.has(k)) continue;
      seen.add(k);
      players.push(next);
      boxSets.push(nextBoxes);
      parents.push(head);
      moves.push(dir);
      if (nextBoxes !== boxes && allBoxesOnTargets(terrain, nextBoxes)) {
        const path: SokobanAction[] = [];
        for (let s = players.length - 1; s > 0; s = parents[s]) path.push(SOKOBAN_ACTIONS[moves[s]]);
        return path.reverse();
      }
      if (players.length > maxStates) return null;
    }
  }
  return null;
}

function key(player: number, boxes: readonly number[]): string {
  return `${player}:${boxes.join(',')}`;
}
