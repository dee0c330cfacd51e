import { EnvConfigError } from '../errors';

/** Fixed terrain codes; boxes and the player live apart from the terrain. */
export const WALL = 0;
export const FLOOR = 1;
export const TARGET = 2;

/** A room: terrain row-major, the player's cell, and each box's cell. */
export interface SokobanRoom {
  rows: number;
  cols: number;
  terrain: Uint8Array;
  player: number;
  boxes: number[];
}

/** Moves in RAGEN's action order (Up, Down, Left, Right) as row/column offsets. */
export const SOKOBAN_ACTIONS = ['Up', 'Down', 'Left', 'Right'] as const;
export type SokobanAction = (typeof SOKOBAN_ACTIONS)[number];
export const SOKOBAN_DELTAS: ReadonlyArray<readonly [number, number]> = [
  [-1, 0],
  [1, 0],
  [0, -1],
  [0, 1],
];

/** The cell one step from `cell` in direction `dir`, or -1 off the board. */
export function stepCell(rows: number, cols: number, cell: number, dir: number): number {
  const r = Math.floor(cell / cols) + SOKOBAN_DELTAS[dir][0];
  const c = (cell % cols) + SOKOBAN_DELTAS[dir][1];
  return r < 0 || r >= rows || c < 0 || c >= cols ? -1 : r * cols + c;
}

export function targetsOf(room: SokobanRoom): number[] {
  const targets: number[] = [];
  room.terrain.forEach((t, i) => {
    if (t === TARGET) targets.push(i);
  });
  return targets;
}

export function allBoxesOnTargets(terrain: Uint8Array, boxes: readonly number[]): boolean {
  return boxes.every((b) => terrain[b] === TARGET);
}

/** Parses a room drawn with the symbols of `renderRoom` (render.ts); the inverse of it. */
export function parseRoom(lines: readonly string[]): SokobanRoom {
  const rows = lines.length;
  const cols = rows > 0 ? [...lines[0]].length : 0;
  if (rows < 3 || cols < 3 || lines.some((l) => [...l].length !== cols)) {
    throw new EnvConfigError('sokoban: a level needs at least 3 rows of equal length');
  }
  const terrain = new Uint8Array(rows * cols);
  const boxes: number[] = [];
  let player = -1;
  lines.forEach((line, r) => {
    [...line].forEach((ch, c) => {
      const cell = r * cols + c;
      const onTarget = ch === 'O' || ch === '√' || ch === 'S';
      if (!'#_OX√PS'.includes(ch)) throw new EnvConfigError(`sokoban: unknown level symbol '${ch}'; use # _ O X √ P S`);
      terrain[cell] = ch === '#' ? WALL : onTarget ? TARGET : FLOOR;
      if (ch === 'X' || ch === '√') boxes.push(cell);
      if (ch === 'P' || ch === 'S') {
        if (player !== -1) throw new EnvConfigError('sokoban: a level needs exactly one player (P or S)');
        player = cell;
      }
    });
  });
  if (player === -1) throw new EnvConfigError('sokoban: a level needs a player (P or S)');
  const targets = terrain.filter((t) => t === TARGET).length;
  if (boxes.length === 0 || boxes.length !== targets) {
    throw new EnvConfigError(`sokoban: a level needs as many targets as boxes, got ${boxes.length} boxes and ${targets} targets`);
  }
  return { rows, cols, terrain, player, boxes };
}
