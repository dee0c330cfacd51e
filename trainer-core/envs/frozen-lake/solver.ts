import type { LakeMap } from './map';

/** Gym's action order; index arithmetic below relies on it (perpendicular = index +-1 mod 4). */
export const LAKE_ACTIONS = ['Left', 'Down', 'Right', 'Up'] as const;
export type LakeAction = (typeof LAKE_ACTIONS)[number];

/** Where a move in direction `action` (index into LAKE_ACTIONS) from `cell` lands; walls keep you in place. */
export function lakeMove(size: number, cell: number, action: number): number {
  const r = Math.floor(cell / size);
  const c = cell % size;
  switch (action) {
    case 0:
      return c > 0 ? cell - 1 : cell;
    case 1:
      return r < size - 1 ? cell + size : cell;
    case 2:
      return c < size - 1 ? cell + 1 : cell;
    default:
      return r > 0 ? cell - size : cell;
  }
}

/** The three directions a slippery move may take, each with probability 1/3 (gym's rule). */
export function slipDirections(action: number): [number, number, number] {
  return [(action + 3) % 4, action, (action + 1) % 4];
}

/** Shortest action sequence from `from` to a goal avoiding holes, or null when none exists. */
export function shortestLakePath(map: LakeMap, from: number): LakeAction[] | null {
  const { size, tiles } = map;
  if (tiles[from] === 'G') return [];
  if (tiles[from] === 'H') return null;
  const parent = new Int32Array(size * size).fill(-1);
  const via = new Int8Array(size * size).fill(-1);
  parent[from] = from;
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const cell = queue[head];
    for (let a = 0; a < 4; a++) {
      const next = lakeMove(size, cell, a);
      if (parent[next] !== -1 || tiles[next] === 'H') continue;
      parent[next] = cell;
      via[next] = a;
      if (tiles[next] === 'G') {
        const path: LakeAction[] = [];
        for (let c = next; c !== from; c = parent[c]) path.push(LAKE_ACTIONS[via[c]]);
        return path.reverse();
      }
      queue.push(next);
    }
  }
  return null;
}

/**
 * Probability that the optimal policy reaches a goal from `from` within `budget` actions, by
 * finite-horizon value iteration: V_0 = [goal], V_k(s) = max_a sum_s' P(s'|s,a) V_{k-1}(s').
 */
export function lakeSuccessProbability(map: LakeMap, from: number, slippery: boolean, budget: number): number {
  const { size, tiles } = map;
  const n = size * size;
  let value = new Float64Array(n);
  for (let s = 0; s < n; s++) value[s] = tiles[s] === 'G' ? 1 : 0;
  for (let k = 0; k < budget; k++) {
    const next = new Float64Array(n);
    for (let s = 0; s < n; s++) {
      if (tiles[s] === 'G') {
        next[s] = 1;
        continue;
      }
      if (tiles[s] === 'H') continue;
      let best = 0;
      for (let a = 0; a < 4; a++) {
        let q = 0;
        if (slippery) for (const d of slipDirections(a)) q += value[lakeMove(size, s, d)] / 3;
        else q = value[lakeMove(size, s, a)];
        if (q > best) best = q;
      }
      next[s] = best;
    }
    value = next;
  }
  return value[from];
}
