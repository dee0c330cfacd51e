import { EnvConfigError } from '../errors';

/** Gym's tile letters: S start, F frozen, H hole, G goal. Row-major, `size * size` long. */
export type LakeTile = 'S' | 'F' | 'H' | 'G';

export interface LakeMap {
  size: number;
  tiles: LakeTile[];
}

/** Whether the goal can be reached from `from` without stepping on a hole (moves as if not slippery). */
export function hasPath(map: LakeMap, from: number): boolean {
  const { size, tiles } = map;
  const seen = new Uint8Array(size * size);
  const stack = [from];
  seen[from] = 1;
  while (stack.length > 0) {
    const cell = stack.pop()!;
    if (tiles[cell] === 'G') return true;
    const r = Math.floor(cell / size);
    const c = cell % size;
    const next = [r > 0 ? cell - size : -1, r < size - 1 ? cell + size : -1, c > 0 ? cell - 1 : -1, c < size - 1 ? cell + 1 : -1];
    for (const n of next) {
      if (n >= 0 && !seen[n] && tiles[n] !== 'H') {
        seen[n] = 1;
        stack.push(n);
      }
    }
  }
  return false;
}

/** Parses rows of S/F/H/G letters (one S, at least one G) into a map; for fixed levels and tests. */
export function parseLakeMap(rows: readonly string[]): LakeMap {
  const size = rows.length;
  if (size < 2 || rows.some((row) => row.length !== size)) {
    throw new EnvConfigError(`frozen_lake: a map must be square with at least 2 rows, got rows of lengths ${rows.map((r) => r.length).join(', ')}`);
  }
  const tiles: LakeTile[] = [];
  for (const row of rows) {
    for (const ch of row) {
      if (ch !== 'S' && ch !== 'F' && ch !== 'H' && ch !== 'G') {
        throw new EnvConfigError(`frozen_lake: unknown map letter '${ch}'; use S (start), F (frozen), H (hole), G (goal)`);
      }
      tiles.push(ch);
    }
  }
  if (tiles.filter((t) => t === 'S').length !== 1) throw new EnvConfigError('frozen_lake: a map needs exactly one start S');
  if (!tiles.includes('G')) throw new EnvConfigError('frozen_lake: a map needs a goal G');
  return { size, tiles };
}
