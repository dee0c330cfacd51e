/**
 * `npx tsx scripts/checkpoint-gains.ts <data-dir> <run-id> [iterations] [--episodes 1024]`: how
 * the held-out gain of a run grew, checkpoint by checkpoint. Plays each kept checkpoint of the run
 * (or only the comma-separated iterations given) on the learning bench's held-out episodes (same
 * start seed, temperature 0.5, 1024 by default) and prints its success and the gain over the warm
 * start's own policy (iter-0, `warm_start.save_checkpoint`; for a fork, its parent's), paired over
 * the episodes as `npm run bench -- learning` reports it; `--tag T` plays only validation tag T;
 * `--against <checkpoint folder>` measures against that policy instead (a chain of runs, each from the last one's policy). The store is opened read-only, so a run still training
 * into the folder can be watched; nothing is recorded.
 */
import { resolve } from 'node:path';
import { EVALUATION_EPISODES, EVALUATION_OVERRIDES, EVALUATION_SEED, meanFigure } from '../bench/lib/held-out-evaluation';
import { runCheckpoints } from '../bench/lib/run-checkpoints';
import { formatGain, pairedSuccessGain } from '../bench/lib/success-gain';
import { releaseBackend } from '../trainer-core/backend';
import { evaluateCheckpoint } from '../trainer-core/train/evaluate';

const args = process.argv.slice(2);
const episodesAt = args.indexOf('--episodes');
const episodes = episodesAt >= 0 ? Number(args.splice(episodesAt, 2)[1]) : EVALUATION_EPISODES;
// A run that validates on several tags (a curriculum watching its first stage's envs too) is
// measured on one: every held-out episode from that tag, the seeds a run validating on it alone plays.
const tagAt = args.indexOf('--tag');
const tag = tagAt >= 0 ? args.splice(tagAt, 2)[1] : undefined;
const overrides = tag === undefined ? EVALUATION_OVERRIDES : [...EVALUATION_OVERRIDES, `es_manager.val.env_configs.tags=[${tag}]`, 'es_manager.val.env_configs.n_groups=[1]', 'es_manager.val.env_groups=1'];
const againstAt = args.indexOf('--against');
const against = againstAt >= 0 ? args.splice(againstAt, 2)[1] : undefined;
const [dataDir, runText, iterationsText] = args;
if (!dataDir || !/^\d+$/.test(runText ?? '') || !Number.isInteger(episodes) || episodes < 2 || (iterationsText !== undefined && !/^\d+(,\d+)*$/.test(iterationsText)) || (tagAt >= 0 && !tag) || (againstAt >= 0 && !against)) {
  process.stderr.write('usage: npx tsx scripts/checkpoint-gains.ts <data-dir> <run-id> [iterations, e.g. 600,1000] [--episodes 1024] [--tag <validation tag>] [--against <checkpoint folder>]\n');
  process.exit(2);
}
const kept = runCheckpoints(dataDir, Number(runText));
const { checkpoints } = kept;
const warm = against === undefined ? kept.warm : { iteration: 0, path: resolve(against) };
const wanted = iterationsText === undefined ? null : new Set(iterationsText.split(',').map(Number));
if (!warm) {
  process.stderr.write(`run ${runText} nor its parents has an iter-0 checkpoint: set warm_start.save_checkpoint: true so the warm start's policy is kept\n`);
  process.exit(2);
}
const evaluate = (path: string) => evaluateCheckpoint(resolve(dataDir, path), { episodes, seed: EVALUATION_SEED, overrides });
const play = async (path: string) => (await evaluate(path)).episodeReports.map((e) => e.success);
const warmResult = await evaluate(warm.path);
const warmSuccess = warmResult.episodeReports.map((e) => e.success);
console.log(`run ${runText}, ${episodes} held-out episodes from seed ${EVALUATION_SEED}: warm start alone ${(warmSuccess.filter(Boolean).length / episodes).toFixed(3)}, optimal policy ${meanFigure(warmResult.metrics, 'optimal_success')}`);
for (const c of checkpoints) {
  if (c.path === warm.path || (wanted && !wanted.has(c.iteration))) continue;
  const gain = pairedSuccessGain(warmSuccess, await play(c.path));
  console.log(`iteration ${c.iteration}: ${gain.after.toFixed(3)}, gain ${formatGain(gain)}`);
}
await releaseBackend();
