/**
 * `npx tsx scripts/no-op-turns.ts <data-dir> <run-id> [--block 25]`: by blocks of training
 * iterations, how often a run's policy repeated a move that changed nothing (the turn right after
 * one changed nothing again), at the training temperature, and the mean advantage the update gave
 * a move that changed the board, a first no-op and a repeated one (bench/lib/no-op-turns.ts). The
 * store is opened read-only, so a run still training can be watched.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { addNoOpTurns, emptyNoOpTurns, meanAdvantage, repeatShare, type NoOpTurns, type TurnKind } from '../bench/lib/no-op-turns';

const args = process.argv.slice(2);
const blockAt = args.indexOf('--block');
const block = blockAt >= 0 ? Number(args.splice(blockAt, 2)[1]) : 25;
const [dataDir, runText] = args;
if (!dataDir || !/^\d+$/.test(runText ?? '') || args.length !== 2 || !Number.isInteger(block) || block < 1) {
  process.stderr.write('usage: npx tsx scripts/no-op-turns.ts <data-dir> <run-id> [--block 25]\n');
  process.exit(2);
}
const db = new Database(join(dataDir, 'turnlab.sqlite'), { readonly: true, fileMustExist: true });
const episodes = db
  .prepare("SELECT id, iteration, success, filtered_out AS filtered FROM episodes WHERE run_id = ? AND split = 'train' ORDER BY iteration, id")
  .all(Number(runText)) as Array<{ id: number; iteration: number; success: number; filtered: number }>;
if (episodes.length === 0) {
  process.stderr.write(`run ${runText} has no training episodes in ${dataDir}\n`);
  process.exit(2);
}
const turnsOf = db.prepare('SELECT observation, advantage_mean AS advantage FROM turns WHERE episode_id = ? ORDER BY turn_index');
const blocks = new Map<number, NoOpTurns>();
for (const e of episodes) {
  const b = Math.floor((e.iteration - 1) / block);
  const turns = (turnsOf.all(e.id) as Array<{ observation: string; advantage: number | null }>).map((t) => ({
    observation: t.observation,
    advantage: e.filtered ? null : t.advantage,
  }));
  blocks.set(b, addNoOpTurns(blocks.get(b) ?? emptyNoOpTurns(), turns, e.success === 1));
}
db.close();
const adv = (k: TurnKind) => {
  const mean = meanAdvantage(k);
  return `${mean === null ? '-' : mean.toFixed(3)} (${k.trained})`.padStart(16);
};
console.log(`run ${runText}: training episodes at the rollout temperature, by blocks of ${block} iterations`);
console.log('iterations   episodes  solved  repeated after a no-op    mean advantage (turns trained): moved / first no-op / repeated no-op');
for (const [b, t] of [...blocks].sort((x, y) => x[0] - y[0])) {
  const repeats = `${t.repeatedNoOp.turns} of ${t.afterNoOp} = ${repeatShare(t).toFixed(2)}`;
  console.log(`${b * block + 1}-${(b + 1) * block}`.padEnd(12), String(t.episodes).padStart(8), (t.solved / t.episodes).toFixed(3).padStart(7), repeats.padStart(23), adv(t.moved), adv(t.firstNoOp), adv(t.repeatedNoOp));
}
