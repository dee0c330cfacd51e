/**
 * `npx tsx scripts/group-reach.ts <checkpoint-dir> [--samples 8] [--temperature 1] [--episodes 1024]`:
 * are the held-out episodes a policy fails ever solved within a group? Plays the checkpoint on the
 * learning bench's held-out episodes at the bench's decoding (temperature 0.5), then `--samples`
 * more times at `--temperature` (the training rollout's, by default the checkpoint's own), each
 * with its own sampler seed, and prints how many of the failed episodes k of the samples solve.
 * A failure no sample solves gives a group-relative estimator (GRPO, RLOO) nothing to learn from.
 * Read-only; nothing is recorded.
 */
import { parse as parseYaml } from 'yaml';
import { EVALUATION_EPISODES, EVALUATION_OVERRIDES, EVALUATION_SEED } from '../bench/lib/held-out-evaluation';
import { groupReach } from '../bench/lib/held-out-outcomes';
import { releaseBackend } from '../trainer-core/backend';
import { parseRunConfig } from '../trainer-core/config/load';
import { readCheckpointConfig } from '../trainer-core/train/checkpoint';
import { evaluateCheckpoint } from '../trainer-core/train/evaluate';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : undefined;
};
const samples = Number(option('--samples') ?? 8);
const episodes = Number(option('--episodes') ?? EVALUATION_EPISODES);
const temperatureText = option('--temperature');
const [dir] = args;
if (!dir || args.length !== 1 || !Number.isInteger(samples) || samples < 1 || !Number.isInteger(episodes) || episodes < 2 || (temperatureText !== undefined && !(Number(temperatureText) > 0))) {
  process.stderr.write('usage: npx tsx scripts/group-reach.ts <checkpoint-dir> [--samples 8] [--temperature 1] [--episodes 1024]\n');
  process.exit(2);
}
const cfg = parseRunConfig(parseYaml(readCheckpointConfig(dir)), `${dir}/config.yaml`);
const temperature = temperatureText === undefined ? cfg.actor_rollout_ref.rollout.temperature : Number(temperatureText);
const play = async (overrides: string[]) =>
  (await evaluateCheckpoint(dir, { episodes, seed: EVALUATION_SEED, overrides })).episodeReports.map((e) => e.success);
const evaluation = await play(EVALUATION_OVERRIDES);
const sampled: boolean[][] = [];
for (let s = 0; s < samples; s++) {
  // The sampler's seed derives from trainer.seed; the start states from the validation start seed alone.
  sampled.push(await play([`actor_rollout_ref.rollout.val_kwargs.temperature=${temperature}`, 'actor_rollout_ref.rollout.val_kwargs.do_sample=true', `trainer.seed=${cfg.trainer.seed + 1 + s}`]));
}
await releaseBackend();
const r = groupReach(evaluation, sampled);
console.log(`${dir}: ${episodes} held-out episodes from seed ${EVALUATION_SEED}`);
console.log(`at temperature 0.5 solved ${(1 - r.failed / episodes).toFixed(3)}; ${samples} samples at temperature ${temperature}: success ${r.sampleSuccess.toFixed(3)}, pass@${samples} ${r.passAtG.toFixed(3)}`);
console.log(`of the ${r.failed} failed at 0.5, solved by at least one sample: ${r.failedReached} (${((100 * r.failedReached) / Math.max(r.failed, 1)).toFixed(1)}%)`);
console.log(`failed at 0.5 by samples solving them: ${r.failedBySolvedSamples.map((n, k) => `${k}: ${n}`).join(', ')}`);
