/**
 * `npx tsx scripts/sokoban-moves.ts <data-dir> <run-id> [iterations-per-row]`: how well a Sokoban
 * run's train moves read the board, block by block of iterations (bench/lib/sokoban-moves.ts),
 * from the run's stored turns.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { sokobanMoveStats, type SokobanTurn } from '../bench/lib/sokoban-moves';

const [dataDir, runText, bucketText = '10'] = process.argv.slice(2);
if (!dataDir || !/^\d+$/.test(runText ?? '') || !/^[1-9]\d*$/.test(bucketText)) {
  process.stderr.write('usage: npx tsx scripts/sokoban-moves.ts <data-dir> <run-id> [iterations-per-row]\n');
  process.exit(2);
}
const db = new Database(join(dataDir, 'turnlab.sqlite'), { readonly: true, fileMustExist: true });
const rows = db
  .prepare(
    `SELECT e.iteration AS iteration, t.observation AS observation, json_extract(t.actions, '$[0]') AS move, t.advantage_mean AS advantage,
       t.response AS response, t.logprob_sum AS logprob
     FROM turns t JOIN episodes e ON e.id = t.episode_id
     WHERE e.run_id = ? AND e.split = 'train' AND e.evaluation_id IS NULL ORDER BY e.iteration`,
  )
  .all(Number(runText)) as Array<{ iteration: number; observation: string; move: string | null; advantage: number | null; response: string; logprob: number | null }>;
db.close();
const bucket = Number(bucketText);
const byBucket = new Map<number, SokobanTurn[]>();
// Per iteration, each reply's sampling log-probabilities: their spread across boards says how
// much the policy's choice depends on the board at all (0 for a policy that plays one
// distribution everywhere, as the random-valid warm start does). Within one iteration, so that a
// marginal that moves between iterations does not count as spread.
const logprobs = new Map<number, Map<string, number[]>>();
for (const r of rows) {
  if (r.move === null) continue;
  const key = Math.floor(r.iteration / bucket) * bucket;
  const turns = byBucket.get(key) ?? byBucket.set(key, []).get(key)!;
  turns.push({ observation: r.observation, move: r.move, advantage: r.advantage });
  if (r.logprob === null) continue;
  const byReply = logprobs.get(r.iteration) ?? logprobs.set(r.iteration, new Map()).get(r.iteration)!;
  (byReply.get(r.response) ?? byReply.set(r.response, []).get(r.response)!).push(r.logprob);
}
const spread = (xs: number[]) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length);
};
const fixed = (x: number | null) => (x === null ? '-' : x.toFixed(3));
console.log(`run ${runText}: ${rows.length} train turns`);
for (const [from, turns] of [...byBucket.entries()].sort((a, b) => a[0] - b[0])) {
  const s = sokobanMoveStats(turns);
  const spreads = [...logprobs.entries()]
    .filter(([iteration]) => iteration >= from && iteration < from + bucket)
    .flatMap(([, byReply]) => [...byReply.values()].filter((xs) => xs.length >= 20).map(spread));
  const meanSpread = spreads.length > 0 ? spreads.reduce((a, b) => a + b, 0) / spreads.length : null;
  const moves = Object.entries(s.byMove).sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${((100 * n) / s.moves).toFixed(0)}%`).join(' ');
  console.log(
    `iterations ${from}-${from + bucket - 1}: ${s.moves} moves in solvable rooms, on a shortest path ${s.shortestPath.toFixed(3)} (at random ${s.shortestPathAtRandom.toFixed(3)}), ` +
      `wedging ${s.wedges.toFixed(3)}, into a wall ${s.ineffective.toFixed(3)}; advantage on shortest-path moves ${fixed(s.advantageShortest)}, others ${fixed(s.advantageOther)}; ` +
      `a reply's log-probability spread across boards ${fixed(meanSpread)}; ${moves}`,
  );
}
