/**
 * `npx tsx scripts/held-out-failures.ts <checkpoint-dir> [--episodes 1024]`: how a policy fails
 * the held-out episodes its environment's solver finishes within the budget. Plays the checkpoint
 * on the learning bench's held-out episodes at the bench's decoding (temperature 0.5) and prints
 * how many of those failures were stuck (3 or more turns on an observation unchanged from the
 * turn before), revisited an observation, and their solution lengths. Needs an environment with
 * a solver (`solve()`); read-only, nothing is recorded. `--set key=value` (repeatable) plays it
 * under a changed setting, e.g. `--set agent_proxy.show_unchanged=true` for a warm start that
 * never saw the line. `--seed S` plays other rooms than the held-out ones (train rooms, say: the
 * held-out ones start at 100000); `--write-seeds FILE` writes the start seeds of the solvable
 * failures, one a line, for `es_manager.train.seeds` (a curriculum of the rooms the policy fails).
 * Each solvable failure is replayed to find the action that lost it (the first after which the
 * goal was further than the actions left): a move that changed nothing, or one the budget could
 * not make up.
 */
import { writeFileSync } from 'node:fs';
import { EVALUATION_EPISODES, EVALUATION_OVERRIDES, EVALUATION_SEED } from '../bench/lib/held-out-evaluation';
import { failureKinds, fatalAction, type FatalAction, type ReplayedAction } from '../bench/lib/failure-kinds';
import { releaseBackend } from '../trainer-core/backend';
import { solverDistance } from '../trainer-core/envs/solver-distance';
import { EnvStateManager } from '../trainer-core/rollout/es-manager';
import { evaluateCheckpoint } from '../trainer-core/train/evaluate';

const args = process.argv.slice(2);
const episodesAt = args.indexOf('--episodes');
const episodes = episodesAt >= 0 ? Number(args.splice(episodesAt, 2)[1]) : EVALUATION_EPISODES;
const seedAt = args.indexOf('--seed');
const startSeed = seedAt >= 0 ? Number(args.splice(seedAt, 2)[1]) : EVALUATION_SEED;
const writeAt = args.indexOf('--write-seeds');
const seedsFile = writeAt >= 0 ? args.splice(writeAt, 2)[1] : undefined;
const sets: string[] = [];
for (let at = args.indexOf('--set'); at >= 0; at = args.indexOf('--set')) sets.push(...args.splice(at, 2).slice(1));
const [dir] = args;
const bad = !Number.isInteger(episodes) || episodes < 2 || !Number.isInteger(startSeed) || startSeed < 0 || (writeAt >= 0 && !seedsFile);
if (!dir || args.length !== 1 || bad || sets.some((s) => !s?.includes('='))) {
  process.stderr.write('usage: npx tsx scripts/held-out-failures.ts <checkpoint-dir> [--episodes 1024] [--seed 100000] [--write-seeds FILE] [--set key=value ...]\n');
  process.exit(2);
}
const result = await evaluateCheckpoint(dir, { episodes, seed: startSeed, overrides: [...EVALUATION_OVERRIDES, ...sets] });
await releaseBackend();
// The same start states as the evaluation's: its config, reset once.
const es = new EnvStateManager(result.config, 'val');
es.reset();
if (!es.entries.some((entry) => entry.env.solve)) {
  process.stderr.write(`the environments of ${dir} have no solver (solve()), so which failures were solvable is unknown\n`);
  process.exit(2);
}
const lengths = result.episodeReports.map((e) => {
  const entry = es.entries[e.envIndex];
  const solution = entry.env.solve?.() ?? null;
  return solution && solution.length <= entry.maxActionsPerTraj ? solution.length : null;
});
const k = failureKinds(
  result.episodeReports.map((e) => ({ success: e.success, observations: e.turns.map((t) => t.observation) })),
  lengths,
);
const share = (a: number, b: number) => `${a} of ${b} (${((100 * a) / Math.max(b, 1)).toFixed(0)}%)`;
console.log(`${dir}${sets.length ? ` with ${sets.join(', ')}` : ''}: ${k.episodes} held-out episodes from seed ${startSeed} at temperature 0.5`);
console.log(`solved ${k.solved}; the solver finishes ${k.solvable} within the budget; of those the policy failed ${k.solvableFailed}`);
console.log(`of the solvable failures: stuck (3+ turns on an unchanged observation) ${share(k.stuck, k.solvableFailed)}, an observation seen twice ${share(k.revisited, k.solvableFailed)}`);
console.log(`turns on an unchanged observation: failures ${share(k.unchangedTurns, k.failedTurns)}, solved episodes ${share(k.solvedUnchangedTurns, k.solvedTurns)}`);
console.log(`solvable failures by solution length: ${[...k.failedBySolutionLength.entries()].sort((a, b) => a[0] - b[0]).map(([n, c]) => `${n}: ${c}`).join(', ')}`);
const solvableFailures = result.episodeReports.filter((e, i) => !e.success && lengths[i] !== null);
// Which action lost each solvable failure: replayed from its start seed, the solver asked after each action.
const fatal: FatalAction[] = [];
solvableFailures.forEach((e) => {
  const entry = es.entries[e.envIndex];
  let before = entry.env.reset(e.seed);
  const replayed: ReplayedAction[] = [];
  for (const turn of e.turns) {
    const valid = turn.actions.filter((a) => entry.prompt.actionNames?.includes(a) ?? true);
    for (const action of valid.slice(0, entry.multiAction ? valid.length : 1)) {
      if (replayed.length >= entry.maxActionsPerTraj) break;
      const after = entry.env.step(action).observation;
      replayed.push({ changed: after !== before, distanceAfter: solverDistance(entry.env) });
      before = after;
    }
  }
  const lost = fatalAction(replayed, entry.maxActionsPerTraj);
  if (lost) fatal.push(lost);
});
const lostBy = (kind: FatalAction['kind']) => fatal.filter((f) => f.kind === kind);
const afterNoOp = (list: FatalAction[]) => list.filter((f) => f.noOpsBefore > 0).length;
console.log(
  `the action that lost a solvable failure: a no-op ${share(lostBy('no-op').length, k.solvableFailed)} (after an earlier no-op: ${afterNoOp(lostBy('no-op'))}), ` +
    `a move ${share(lostBy('move').length, k.solvableFailed)} (after an earlier no-op: ${afterNoOp(lostBy('move'))}), never lost by its actions ${k.solvableFailed - fatal.length}; ` +
    `lost at action ${fatal.map((f) => f.index + 1).sort((a, b) => a - b).join(' ')}`,
);
if (seedsFile) {
  writeFileSync(seedsFile, `${solvableFailures.map((e) => e.seed).join('\n')}\n`);
  console.log(`wrote the ${solvableFailures.length} solvable failures' start seeds to ${seedsFile}`);
}
