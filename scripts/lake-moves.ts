/**
 * `npx tsx scripts/lake-moves.ts <data-dir> <run-id> [iterations-per-row]`: how well a FrozenLake
 * run's train moves read the board, iteration by iteration (bench/lib/lake-moves.ts), from the
 * run's stored turns; per row also the forks (a goal-ward hole beside a goal-ward safe move) and
 * the blocked turns (every goal-ward move a hole), where only a policy that reads the holes does
 * better than uniform moves.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { lakeMoveStats, type HoleChoice, type LakeTurn } from '../bench/lib/lake-moves';

const [dataDir, runText, bucketText = '10'] = process.argv.slice(2);
if (!dataDir || !/^\d+$/.test(runText ?? '') || !/^[1-9]\d*$/.test(bucketText)) {
  process.stderr.write('usage: npx tsx scripts/lake-moves.ts <data-dir> <run-id> [iterations-per-row]\n');
  process.exit(2);
}
const db = new Database(join(dataDir, 'turnlab.sqlite'), { readonly: true, fileMustExist: true });
const maxMoves = (db.prepare('SELECT MAX(num_actions) AS n FROM episodes WHERE run_id = ?').get(Number(runText)) as { n: number | null }).n ?? 0;
const rows = db
  .prepare(
    `SELECT e.iteration AS iteration, t.turn_index AS turnIndex, t.observation AS observation, t.advantage_mean AS advantage, json_extract(t.actions, '$[0]') AS move
     FROM turns t JOIN episodes e ON e.id = t.episode_id
     WHERE e.run_id = ? AND e.split = 'train' AND e.evaluation_id IS NULL ORDER BY e.iteration`,
  )
  .all(Number(runText)) as Array<{ iteration: number; turnIndex: number; observation: string; advantage: number | null; move: string | null }>;
db.close();
// One move a turn (configs/frozenlake*.yaml): the moves left are the budget less the turns played.
const budget = Math.max(maxMoves, 10);
const bucket = Number(bucketText);
const byBucket = new Map<number, LakeTurn[]>();
for (const r of rows) {
  if (r.move === null) continue;
  const key = Math.floor(r.iteration / bucket) * bucket;
  const turns = byBucket.get(key) ?? byBucket.set(key, []).get(key)!;
  turns.push({ observation: r.observation, move: r.move, movesLeft: budget - r.turnIndex, advantage: r.advantage });
}
console.log(`run ${runText}: ${rows.length} train turns, a move budget of ${budget}`);
for (const [from, turns] of [...byBucket.entries()].sort((a, b) => a[0] - b[0])) {
  const s = lakeMoveStats(turns);
  const moves = Object.entries(s.byMove).sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${((100 * n) / s.moves).toFixed(0)}%`).join(' ');
  const advantage = (x: number | null) => (x === null ? '-' : x.toFixed(3));
  const choice = (name: string, c: HoleChoice) =>
    `${name} ${c.turns}: into the hole ${c.intoHole.toFixed(2)} (uniform ${c.uniformIntoHole.toFixed(2)}; advantage ${advantage(c.holeAdvantage)} against ${advantage(c.otherAdvantage)})`;
  console.log(`iterations ${from}-${from + bucket - 1}: ${s.moves} moves, at a hole ${s.aimAtHole.toFixed(3)}, toward the goal ${s.towardGoal.toFixed(3)}, Q*(move) - mean ${s.moveValue.toFixed(4)} (best move ${s.bestMoveValue.toFixed(4)}); ${moves}`);
  console.log(`  ${choice('forks', s.fork)}; ${choice('blocked', s.blocked)}`);
}
