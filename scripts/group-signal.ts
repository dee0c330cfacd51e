/**
 * `npx tsx scripts/group-signal.ts <data-dir> <run-id> [from-iteration]`: how much signal a run's
 * train groups gave a group-relative estimator (bench/lib/group-signal.ts), read from the run's
 * stored train episodes.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { groupSignal } from '../bench/lib/group-signal';

const [dataDir, runText, fromText = '1'] = process.argv.slice(2);
if (!dataDir || !/^\d+$/.test(runText ?? '')) {
  process.stderr.write('usage: npx tsx scripts/group-signal.ts <data-dir> <run-id> [from-iteration]\n');
  process.exit(2);
}
const db = new Database(join(dataDir, 'turnlab.sqlite'), { readonly: true, fileMustExist: true });
const rows = db
  .prepare("SELECT iteration, group_id AS groupId, success, total_reward AS reward, num_turns AS turns FROM episodes WHERE run_id = ? AND split = 'train' AND iteration >= ?")
  .all(Number(runText), Number(fromText)) as Array<{ iteration: number; groupId: number; success: number; reward: number; turns: number }>;
db.close();
const s = groupSignal(rows.map((r) => ({ ...r, success: r.success === 1 })));
const iterations = new Set(rows.map((r) => r.iteration)).size;
const share = (n: number) => `${n} (${((100 * n) / s.groups).toFixed(1)}%)`;
console.log(`run ${runText}: ${rows.length} train episodes, ${s.groups} groups over ${iterations} iterations`);
console.log(`groups with zero reward variance: ${share(s.zeroVariance)}; all solved: ${share(s.allSolved)}; all failed: ${share(s.allFailed)}`);
console.log(`rooms at most half solved: ${share(s.mostlyFailed)}, of them solved by at least one episode: ${s.mostlyFailedSolvedOnce}`);
console.log(`GRPO advantage per turn (token-mean weighting; per episode it is 0): ${s.advantagePerTurn?.toFixed(3)}`);
console.log(`groups by successful episodes: ${[...s.successesPerGroup.entries()].sort((a, b) => a[0] - b[0]).map(([k, n]) => `${k}: ${n}`).join(', ')}`);
