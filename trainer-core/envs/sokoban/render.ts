import type { Cell, GridCell, StateRender } from '../types';
import { targetsOf, TARGET, WALL, type SokobanRoom } from './room';

/** Text symbols, exactly RAGEN's: # wall, _ floor, O target, X box, √ box on target, P player, S player on target. */
export function renderRoom(room: SokobanRoom): string {
  const boxSet = new Set(room.boxes);
  const lines: string[] = [];
  for (let r = 0; r < room.rows; r++) {
    let line = '';
    for (let c = 0; c < room.cols; c++) {
      const cell = r * room.cols + c;
      const t = room.terrain[cell];
      if (t === WALL) line += '#';
      else if (boxSet.has(cell)) line += t === TARGET ? '√' : 'X';
      else if (cell === room.player) line += t === TARGET ? 'S' : 'P';
      else line += t === TARGET ? 'O' : '_';
    }
    lines.push(line);
  }
  return lines.join('\n');
}

/**
 * The room inside its outer ring, when that ring is all wall (a drawn level may have floor on its
 * edge, and is then kept whole): the ring tells a reader nothing, and costs a token a cell.
 */
export function withoutOuterWall(room: SokobanRoom): SokobanRoom {
  const { rows, cols, terrain } = room;
  const onRing = (cell: number) => {
    const r = Math.floor(cell / cols);
    const c = cell % cols;
    return r === 0 || c === 0 || r === rows - 1 || c === cols - 1;
  };
  if (rows < 3 || cols < 3) return room;
  for (let cell = 0; cell < rows * cols; cell++) if (onRing(cell) && terrain[cell] !== WALL) return room;
  const inner = (cell: number) => (Math.floor(cell / cols) - 1) * (cols - 2) + (cell % cols) - 1;
  const innerTerrain = new Uint8Array((rows - 2) * (cols - 2));
  for (let cell = 0; cell < rows * cols; cell++) if (!onRing(cell)) innerTerrain[inner(cell)] = terrain[cell];
  return { rows: rows - 2, cols: cols - 2, terrain: innerTerrain, player: inner(room.player), boxes: room.boxes.map(inner) };
}

/** The room as tiles for the replay view; `solved` marks the finished room. */
export function roomStateRender(room: SokobanRoom, solved: boolean): StateRender {
  const { rows, cols, terrain } = room;
  const cell = (i: number): Cell => [Math.floor(i / cols), i % cols];
  const grid: GridCell[][] = [];
  for (let r = 0; r < rows; r++) {
    const row: GridCell[] = [];
    for (let c = 0; c < cols; c++) {
      const t = terrain[r * cols + c];
      row.push(t === WALL ? 'wall' : t === TARGET ? 'target' : 'floor');
    }
    grid.push(row);
  }
  return {
    kind: 'grid',
    rows: grid,
    player: cell(room.player),
    boxes: room.boxes.map(cell),
    targets: targetsOf(room).map(cell),
    status: solved ? 'solved' : 'playing',
  };
}
