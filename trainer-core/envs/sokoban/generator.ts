import type { Rng } from '../../rng';
import { EnvConfigError } from '../errors';
import { FLOOR, stepCell, TARGET, WALL, type SokobanRoom } from './room';

export interface RoomGenerationOptions {
  rows: number;
  cols: number;
  numBoxes: number;
  /** Deepest reverse-play move sequence explored (gym-sokoban's search_depth). */
  searchDepth: number;
}

// gym-sokoban's carving masks: the floor a random walk leaves behind at each step.
const MASKS: ReadonlyArray<ReadonlyArray<readonly [number, number]>> = [
  [[1, 0], [1, 1], [1, 2]],
  [[0, 1], [1, 1], [2, 1]],
  [[1, 0], [1, 1], [2, 1]],
  [[1, 0], [1, 1], [2, 0], [2, 1]],
  [[1, 1], [1, 2], [2, 1]],
];
const WALK_DIRECTIONS: ReadonlyArray<readonly [number, number]> = [[1, 0], [0, 1], [-1, 0], [0, -1]];
const P_CHANGE_DIRECTION = 0.35;
const MAX_ROOM_ATTEMPTS = 200;
// Reverse play visits every reachable state in RAGEN-sized rooms; this only bounds huge ones.
const MAX_REVERSE_STATES = 300_000;

/**
 * A solvable room by reverse play, as gym-sokoban (and so RAGEN) makes them: carve a room by a
 * random walk, put the boxes on their targets, then explore every way the player can walk and
 * pull boxes backwards; keep the reachable state whose boxes are farthest from their targets
 * (ties broken at random). Pushing reverses pulling, so that state can be solved by construction.
 * Rooms where no box could leave its target are thrown away. Finally the player wanders up to
 * three free steps, as RAGEN does, so it does not always start next to the box it just pulled.
 */
export function generateSokobanRoom(options: RoomGenerationOptions, rng: Rng): SokobanRoom {
  const { rows, cols, numBoxes } = options;
  for (let attempt = 0; attempt < MAX_ROOM_ATTEMPTS; attempt++) {
    const terrain = carveTopology(rows, cols, rng);
    const floor: number[] = [];
    terrain.forEach((t, i) => {
      if (t !== WALL) floor.push(i);
    });
    if (floor.length <= numBoxes + 1) continue;
    rng.shuffle(floor);
    const player = floor[0];
    const targets = floor.slice(1, 1 + numBoxes);
    for (const t of targets) terrain[t] = TARGET;
    const best = reversePlay(rows, cols, terrain, player, targets, options.searchDepth, rng);
    if (best === null) continue;
    const room = { rows, cols, terrain, player: best.player, boxes: best.boxes };
    wanderPlayer(room, best.score === 1 ? 0.8 : 0.5, rng);
    return room;
  }
  throw new EnvConfigError(
    `sokoban: could not generate a ${rows}x${cols} room with ${numBoxes} box(es) in ${MAX_ROOM_ATTEMPTS} tries; use a larger room or fewer boxes`,
  );
}

function carveTopology(rows: number, cols: number, rng: Rng): Uint8Array {
  const terrain = new Uint8Array(rows * cols);
  const steps = Math.floor(1.7 * (rows + cols));
  let direction = rng.choice(WALK_DIRECTIONS);
  let r = rng.intBetween(1, rows - 1);
  let c = rng.intBetween(1, cols - 1);
  for (let s = 0; s < steps; s++) {
    if (rng.next() < P_CHANGE_DIRECTION) direction = rng.choice(WALK_DIRECTIONS);
    r = Math.max(Math.min(r + direction[0], rows - 2), 1);
    c = Math.max(Math.min(c + direction[1], cols - 2), 1);
    for (const [dr, dc] of rng.choice(MASKS)) {
      const rr = r - 1 + dr;
      const cc = c - 1 + dc;
      if (rr > 0 && rr < rows - 1 && cc > 0 && cc < cols - 1) terrain[rr * cols + cc] = FLOOR;
    }
  }
  return terrain;
}

interface ReverseState {
  player: number;
  boxes: number[];
  score: number;
}

/** Breadth-first reverse play; returns a farthest-from-targets state, or null if no box can move. */
function reversePlay(
  rows: number,
  cols: number,
  terrain: Uint8Array,
  player: number,
  targets: number[],
  searchDepth: number,
  rng: Rng,
): ReverseState | null {
  const start: ReverseState = { player, boxes: targets.slice(), score: 0 };
  const seen = new Set<string>([stateKey(start)]);
  let frontier = [start];
  let best: ReverseState[] = [];
  let bestScore = 0;
  for (let depth = 0; depth < searchDepth && frontier.length > 0 && seen.size < MAX_REVERSE_STATES; depth++) {
    const next: ReverseState[] = [];
    for (const state of frontier) {
      for (let dir = 0; dir < 4; dir++) {
        const to = stepCell(rows, cols, state.player, dir);
        if (to < 0 || terrain[to] === WALL || state.boxes.includes(to)) continue;
        // Walking away from a box may drag it along (a pull) or leave it (a plain move).
        const behind = stepCell(rows, cols, state.player, dir ^ 1);
        const pulled = behind >= 0 ? state.boxes.indexOf(behind) : -1;
        const variants = pulled >= 0 ? [false, true] : [false];
        for (const pull of variants) {
          const boxes = pull ? state.boxes.map((b, i) => (i === pulled ? state.player : b)) : state.boxes;
          const candidate: ReverseState = { player: to, boxes, score: pull ? displacement(cols, boxes, targets) : state.score };
          const k = stateKey(candidate);
          if (seen.has(k)) continue;
          seen.add(k);
          next.push(candidate);
          if (candidate.score > bestScore) {
            bestScore = candidate.score;
            best = [candidate];
          } else if (candidate.score === bestScore && bestScore > 0) {
            best.push(candidate);
          }
        }
      }
    }
    frontier = next;
  }
  return best.length > 0 ? rng.choice(best) : null;
}

function displacement(cols: number, boxes: readonly number[], targets: readonly number[]): number {
  let total = 0;
  for (let i = 0; i < boxes.length; i++) {
    total += Math.abs(Math.floor(boxes[i] / cols) - Math.floor(targets[i] / cols)) + Math.abs((boxes[i] % cols) - (targets[i] % cols));
  }
  return total;
}

function stateKey(state: ReverseState): string {
  return `${state.player}:${state.boxes.join(',')}`;
}

function wanderPlayer(room: SokobanRoom, moveProbability: number, rng: Rng): void {
  if (rng.next() > moveProbability) return;
  const visited = [room.player];
  for (let steps = 0; steps < 3; ) {
    const options: number[] = [];
    for (let dir = 0; dir < 4; dir++) {
      const to = stepCell(room.rows, room.cols, room.player, dir);
      if (to >= 0 && room.terrain[to] !== WALL && !room.boxes.includes(to) && !visited.includes(to)) options.push(to);
    }
    if (options.length === 0) return;
    room.player = rng.choice(options);
    visited.push(room.player);
    steps++;
    if (rng.next() > 0.5) return;
  }
}
