/**
 * `npx tsx scripts/checkpoint-flips.ts <data-dir> <run-id> [iterations] [--episodes 1024] [--sampled]`:
 * is RL's progress kept or undone? Plays the warm start (iter-0, up the parent chain for a fork)
 * and each kept checkpoint of the run on the learning bench's held-out episodes, greedily by
 * default, so that an episode whose outcome changes from one checkpoint to the next changed with
 * the policy and not with the sampler (`--sampled`: the bench's temperature 0.5 instead). Prints per
 * checkpoint the success, the episodes gained and lost since the previous one, and how many of
 * those gained are still solved at the last. Read-only; nothing is recorded.
 */
import { resolve } from 'node:path';
import { EVALUATION_EPISODES, EVALUATION_OVERRIDES, EVALUATION_SEED } from '../bench/lib/held-out-evaluation';
import { outcomeFlips } from '../bench/lib/held-out-outcomes';
import { runCheckpoints } from '../bench/lib/run-checkpoints';
import { releaseBackend } from '../trainer-core/backend';
import { evaluateCheckpoint } from '../trainer-core/train/evaluate';

const args = process.argv.slice(2);
const sampled = args.includes('--sampled');
if (sampled) args.splice(args.indexOf('--sampled'), 1);
const episodesAt = args.indexOf('--episodes');
const episodes = episodesAt >= 0 ? Number(args.splice(episodesAt, 2)[1]) : EVALUATION_EPISODES;
const [dataDir, runText, iterationsText] = args;
if (!dataDir || !/^\d+$/.test(runText ?? '') || !Number.isInteger(episodes) || episodes < 2 || (iterationsText !== undefined && !/^\d+(,\d+)*$/.test(iterationsText))) {
  process.stderr.write('usage: npx tsx scripts/checkpoint-flips.ts <data-dir> <run-id> [iterations, e.g. 100,200] [--episodes 1024] [--sampled]\n');
  process.exit(2);
}
const { checkpoints, warm } = runCheckpoints(dataDir, Number(runText));
if (!warm) {
  process.stderr.write(`run ${runText} nor its parents has an iter-0 checkpoint: set warm_start.save_checkpoint: true so the warm start's policy is kept\n`);
  process.exit(2);
}
const wanted = iterationsText === undefined ? null : new Set(iterationsText.split(',').map(Number));
const played = [warm, ...checkpoints.filter((c) => c.path !== warm.path && (!wanted || wanted.has(c.iteration)))];
const overrides = sampled ? EVALUATION_OVERRIDES : ['actor_rollout_ref.rollout.val_kwargs.do_sample=false'];
const outcomes: boolean[][] = [];
for (const c of played) {
  const result = await evaluateCheckpoint(resolve(dataDir, c.path), { episodes, seed: EVALUATION_SEED, overrides });
  outcomes.push(result.episodeReports.map((e) => e.success));
}
await releaseBackend();
const flips = outcomeFlips(outcomes);
const decoding = sampled ? 'temperature 0.5' : 'greedy';
console.log(`run ${runText}, ${episodes} held-out episodes from seed ${EVALUATION_SEED}, ${decoding}: warm start ${(outcomes[0].filter(Boolean).length / episodes).toFixed(3)}`);
for (const s of flips.steps) {
  console.log(`iteration ${played[s.to].iteration}: ${s.success.toFixed(3)}; since iteration ${played[s.to - 1].iteration} gained ${s.gained}, lost ${s.lost}; of the gained, solved at the last: ${s.gainedKept}`);
}
console.log(`warm start to the last: gained ${flips.netGained}, lost ${flips.netLost}, net ${flips.netGained - flips.netLost}; churn over the steps ${flips.churn}`);
