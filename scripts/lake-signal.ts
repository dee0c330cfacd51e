/**
 * `npx tsx scripts/lake-signal.ts [boards] [moves]`: how much a single decision on RAGEN's slippery
 * FrozenLake (4x4, p 0.8, random start and goal) tells a policy-gradient update, computed exactly
 * (policy evaluation over the slip probabilities) on generated boards, for a policy that moves at
 * random (a random-valid warm start) and for one that aims at the goal. Per decision visited by the
 * policy: the spread of the true advantage A(s, a) = Q(s, a) - V(s) over the moves it samples (the
 * signal), against the noise an estimate of it carries: the episode's outcome (Monte Carlo, what
 * GRPO uses) or one slip with a perfect critic (TD, what GAE with lambda 0 uses). The ratio
 * squared is how many decisions it takes to learn what one supervised label says.
 */
import { generateLakeMap, LAKE_ACTIONS, lakeMove, slipDirections, type LakeMap } from '../trainer-core/envs/frozen-lake';
import { Rng } from '../trainer-core/rng';

type Policy = (map: LakeMap, cell: number) => number[];

const uniform: Policy = () => [0.25, 0.25, 0.25, 0.25];

/** Moves that shorten the Manhattan distance to the goal and do not aim at a hole; uniform when none. */
const aimAtGoal: Policy = (map, cell) => {
  const goal = map.tiles.indexOf('G');
  const dist = (c: number) => Math.abs(Math.floor(c / map.size) - Math.floor(goal / map.size)) + Math.abs((c % map.size) - (goal % map.size));
  const good = LAKE_ACTIONS.map((_, a) => {
    const t = lakeMove(map.size, cell, a);
    return dist(t) < dist(cell) && map.tiles[t] !== 'H';
  });
  const n = good.filter(Boolean).length;
  return n === 0 ? uniform(map, cell) : good.map((g) => (g ? 1 / n : 0));
};

/** V[k][s]: success within k moves under the policy; Q via one slip step. */
function evaluate(map: LakeMap, policy: Policy, moves: number): { V: Float64Array[]; Q: (k: number, s: number, a: number) => number } {
  const n = map.size * map.size;
  const V: Float64Array[] = [Float64Array.from(map.tiles, (t) => (t === 'G' ? 1 : 0))];
  const q = (k: number, s: number, a: number) => slipDirections(a).reduce((acc, d) => acc + V[k - 1][lakeMove(map.size, s, d)] / 3, 0);
  for (let k = 1; k <= moves; k++) {
    V.push(new Float64Array(n));
    for (let s = 0; s < n; s++) {
      if (map.tiles[s] === 'G') V[k][s] = 1;
      else if (map.tiles[s] !== 'H') V[k][s] = policy(map, s).reduce((acc, p, a) => acc + p * q(k, s, a), 0);
    }
  }
  return { V, Q: q };
}

function measure(policy: Policy, boards: number, moves: number): void {
  const rng = new Rng(7);
  let weight = 0, signal = 0, mcNoise = 0, tdNoise = 0, success = 0;
  // The mean true advantage of three kinds of move: aimed at a hole, toward the goal (not at a hole), the rest.
  const kinds = { hole: [0, 0], goalward: [0, 0], other: [0, 0] };
  for (let b = 0; b < boards; b++) {
    const map = generateLakeMap(4, 0.8, rng);
    const { V, Q } = evaluate(map, policy, moves);
    const start = map.tiles.indexOf('S');
    success += V[moves][start];
    // Exact visitation: the probability of standing on each square with k moves left.
    let dist = new Float64Array(16);
    dist[start] = 1;
    for (let k = moves; k >= 1; k--) {
      const next = new Float64Array(16);
      for (let s = 0; s < 16; s++) {
        if (dist[s] === 0 || map.tiles[s] === 'H' || map.tiles[s] === 'G') continue;
        const pi = policy(map, s);
        for (let a = 0; a < 4; a++) {
          if (pi[a] === 0) continue;
          const w = dist[s] * pi[a];
          const qa = Q(k, s, a);
          weight += w;
          signal += w * (qa - V[k][s]) ** 2;
          const goal = map.tiles.indexOf('G');
          const manhattan = (c: number) => Math.abs(Math.floor(c / 4) - Math.floor(goal / 4)) + Math.abs((c % 4) - (goal % 4));
          const target = lakeMove(map.size, s, a);
          const kind = kinds[map.tiles[target] === 'H' ? 'hole' : manhattan(target) < manhattan(s) ? 'goalward' : 'other'];
          kind[0] += w * (qa - V[k][s]);
          kind[1] += w;
          mcNoise += w * qa * (1 - qa); // the outcome after (s, a) is Bernoulli(Q)
          const outcomes = slipDirections(a).map((d) => V[k - 1][lakeMove(map.size, s, d)]);
          tdNoise += w * outcomes.reduce((acc, v) => acc + (v - qa) ** 2 / 3, 0);
          for (const d of slipDirections(a)) next[lakeMove(map.size, s, d)] += w / 3;
        }
      }
      dist = next;
    }
  }
  const rms = Math.sqrt(signal / weight);
  const mc = Math.sqrt(mcNoise / weight);
  const td = Math.sqrt(tdNoise / weight);
  console.log(
    `success ${(success / boards).toFixed(3)}, decisions an episode ${(weight / boards).toFixed(2)}; true advantage spread ${rms.toFixed(4)}; ` +
      `noise: outcome ${mc.toFixed(3)} (signal/noise ${(rms / mc).toFixed(3)}, ${Math.round((mc / rms) ** 2)} decisions a unit of evidence), ` +
      `one slip with a perfect critic ${td.toFixed(3)} (signal/noise ${(rms / td).toFixed(3)}, ${Math.round((td / rms) ** 2)} decisions)`,
  );
  const share = (k: keyof typeof kinds) => `${k} ${((100 * kinds[k][1]) / weight).toFixed(0)}% of moves, mean advantage ${(kinds[k][0] / Math.max(kinds[k][1], 1e-12)).toFixed(4)}`;
  console.log(`  ${share('hole')}; ${share('goalward')}; ${share('other')}`);
}

const boards = Number(process.argv[2] ?? 2000);
const moves = Number(process.argv[3] ?? 10);
console.log(`${boards} boards, ${moves} moves`);
process.stdout.write('random moves: ');
measure(uniform, boards, moves);
process.stdout.write('aiming at the goal: ');
measure(aimAtGoal, boards, moves);
