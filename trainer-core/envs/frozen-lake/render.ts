import type { GridCell, StateRender } from '../types';
import type { LakeMap } from './map';

const SYMBOL = { player: 'P', frozen: '_', hole: 'O', goal: 'G', playerInHole: 'X', playerOnGoal: '√' } as const;

/** The map as the model reads it, RAGEN's symbols, the player on `player`. */
export function renderLake(map: LakeMap, player: number): string {
  const { size, tiles } = map;
  const lines: string[] = [];
  for (let r = 0; r < size; r++) {
    let line = '';
    for (let c = 0; c < size; c++) {
      const cell = r * size + c;
      const tile = tiles[cell];
      if (cell === player) line += tile === 'H' ? SYMBOL.playerInHole : tile === 'G' ? SYMBOL.playerOnGoal : SYMBOL.player;
      else line += tile === 'H' ? SYMBOL.hole : tile === 'G' ? SYMBOL.goal : SYMBOL.frozen;
    }
    lines.push(line);
  }
  return lines.join('\n');
}

/** The map as tiles for the replay view. */
export function lakeStateRender(map: LakeMap, player: number): StateRender {
  const { size, tiles } = map;
  const kinds: Record<string, GridCell> = { S: 'start', F: 'frozen', H: 'hole', G: 'goal' };
  const rows: GridCell[][] = [];
  for (let r = 0; r < size; r++) rows.push(tiles.slice(r * size, (r + 1) * size).map((t) => kinds[t]));
  const status = tiles[player] === 'H' ? 'fell' : tiles[player] === 'G' ? 'reached-goal' : 'playing';
  return { kind: 'grid', rows, player: [Math.floor(player / size), player % size], boxes: [], targets: [], status };
}
