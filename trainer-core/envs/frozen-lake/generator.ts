import type { Rng } from '../../rng';
import { EnvConfigError } from '../errors';
import { hasPath, type LakeMap, type LakeTile } from './map';

// With p close to 0 almost no map has a path; give up with a clear message instead of looping.
const MAX_MAP_ATTEMPTS = 10_000;

/**
 * Where a generated map puts the start and the goal: a random square each (two different ones),
 * as RAGEN's generate_random_map, or gym's corners (start top-left, goal bottom-right). A goal in
 * one of the four corners is the middle way: a policy must read where it is, from four places.
 */
export interface LakePlacement {
  randomStart: boolean;
  randomGoal: boolean | 'corner';
}

const RAGEN_PLACEMENT: LakePlacement = { randomStart: true, randomGoal: true };

/**
 * A random square map: every tile frozen with probability p, else a hole; start and goal placed
 * as `placement` says; redrawn until a path from start to goal exists.
 */
export function generateLakeMap(size: number, p: number, rng: Rng, placement: LakePlacement = RAGEN_PLACEMENT): LakeMap {
  const cells = size * size;
  for (let attempt = 0; attempt < MAX_MAP_ATTEMPTS; attempt++) {
    const tiles: LakeTile[] = [];
    for (let i = 0; i < cells; i++) tiles.push(rng.next() < p ? 'F' : 'H');
    const start = placement.randomStart ? rng.int(cells) : 0;
    const goal = goalSquare(size, placement.randomGoal, rng);
    if (goal === start) continue;
    tiles[start] = 'S';
    tiles[goal] = 'G';
    const map = { size, tiles };
    if (hasPath(map, start)) return map;
  }
  throw new EnvConfigError(
    `frozen_lake: no ${size}x${size} map with a path to the goal after ${MAX_MAP_ATTEMPTS} tries at p=${p}; raise p (probability of a frozen tile)`,
  );
}

function goalSquare(size: number, randomGoal: LakePlacement['randomGoal'], rng: Rng): number {
  if (randomGoal === 'corner') return [0, size - 1, size * (size - 1), size * size - 1][rng.int(4)];
  return randomGoal ? rng.int(size * size) : size * size - 1;
}
