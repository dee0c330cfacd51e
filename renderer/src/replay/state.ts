// Reading a turn's stored state for drawing: grid worlds become tiles, everything else text.

export type GridTerrain = 'wall' | 'floor' | 'frozen' | 'hole' | 'goal' | 'target' | 'start';
export type GridStatus = 'playing' | 'fell' | 'reached-goal' | 'solved';

export interface GridState {
  kind: 'grid';
  rows: GridTerrain[][];
  player: [number, number] | null;
  boxes: Array<[number, number]>;
  targets: Array<[number, number]>;
  status?: GridStatus;
}

export interface TextState {
  kind: 'text';
  text: string;
  fields?: Record<string, unknown>;
}

const TERRAINS = new Set<string>(['wall', 'floor', 'frozen', 'hole', 'goal', 'target', 'start']);

function isCell(value: unknown): value is [number, number] {
  return Array.isArray(value) && value.length === 2 && value.every((n) => Number.isInteger(n));
}

/** True for a well-formed grid state; anything else is shown as text. */
export function isGridState(state: unknown): state is GridState {
  if (state === null || typeof state !== 'object') return false;
  const s = state as Record<string, unknown>;
  return (
    s.kind === 'grid' &&
    Array.isArray(s.rows) &&
    s.rows.every((row) => Array.isArray(row) && row.every((cell) => typeof cell === 'string' && TERRAINS.has(cell))) &&
    (s.player === null || isCell(s.player)) &&
    Array.isArray(s.boxes) &&
    s.boxes.every(isCell) &&
    Array.isArray(s.targets) &&
    s.targets.every(isCell)
  );
}

export interface Tile {
  row: number;
  col: number;
  terrain: GridTerrain;
  player: boolean;
  box: boolean;
  target: boolean;
}

export interface TileLayout {
  rows: number;
  cols: number;
  tiles: Tile[];
  status: GridStatus | null;
}

const key = (row: number, col: number) => `${row},${col}`;

/** Every cell of the grid with what stands on it, row by row. */
export function tileLayout(state: GridState): TileLayout {
  const boxes = new Set(state.boxes.map(([r, c]) => key(r, c)));
  const targets = new Set(state.targets.map(([r, c]) => key(r, c)));
  const player = state.player ? key(state.player[0], state.player[1]) : null;
  const tiles: Tile[] = [];
  state.rows.forEach((row, r) =>
    row.forEach((terrain, c) => {
      const k = key(r, c);
      tiles.push({ row: r, col: c, terrain, player: k === player, box: boxes.has(k), target: targets.has(k) || terrain === 'target' });
    }),
  );
  return { rows: state.rows.length, cols: Math.max(0, ...state.rows.map((row) => row.length)), tiles, status: state.status ?? null };
}

/** A non-grid state as text: its own text when it has one, else its JSON. */
export function stateText(state: unknown): string {
  if (state === null || state === undefined) return '';
  if (typeof state === 'object' && (state as TextState).kind === 'text' && typeof (state as TextState).text === 'string') {
    return (state as TextState).text;
  }
  return JSON.stringify(state, null, 2);
}
