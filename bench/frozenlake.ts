/**
 * Trains configs/frozenlake-nonslip.yaml (a lake that does not slip, random-valid warm start,
 * then GRPO), then forks its last checkpoint with a lower learning rate and GAE with a critic, as
 * a researcher does with `turnlab resume <run> --fork --set ...` once validation stops climbing.
 * Reports every validation (64 fixed boards, sampled at temperature 0.5 as RAGEN's evaluation),
 * the first iteration that reached 0.9, the success on 512 boards of that policy and of the
 * final one, and the wall time.
 * Run alone: npx tsx bench/frozenlake.ts [--verbose] [key=value ...] (config overrides, as train's --set)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { releaseBackend } from '../trainer-core/backend';
import { loadRunConfig } from '../trainer-core/config';
import { evaluateCheckpoint } from '../trainer-core/train/evaluate';
import type { CheckpointReport, EpisodeReport, RunStartInfo, TrainingSink } from '../trainer-core/train/sink';
import { train } from '../trainer-core/train/trainer';

const CONFIG = fileURLToPath(new URL('../configs/frozenlake-nonslip.yaml', import.meta.url));
const TARGET = 0.9;
const METRIC = 'val/FrozenLakeNonSlip/success';
/**
 * The fork: a lower learning rate once the constant 1e-3 of the config has found the holes, and
 * GAE with a critic (started from the policy) so a move into a hole is blamed more than the moves
 * before it: GRPO blames every move of a failed episode alike and learns nothing from a board
 * where every episode of the group fails.
 */
const FORK_OVERRIDES = [
  'actor_rollout_ref.actor.optim.lr=4e-4',
  'algorithm.adv_estimator=gae',
  'algorithm.lam=0.95',
  'critic.optim.lr=1e-3',
];
const FORK_ITERATIONS = 60;
/** Boards for the final evaluation: enough to tell 0.8 from 0.9 (standard error about 0.02). */
const EVALUATION_EPISODES = 512;

/** Prints each validation as it lands and remembers what the report needs. */
class ValidationLog implements TrainingSink {
  readonly successes = new Map<number, number>();
  private readonly started = performance.now();
  firstAtTarget: { iteration: number; seconds: number } | null = null;
  readonly checkpoints = new Map<number, string>();

  constructor(private readonly verbose: boolean) {}

  runStarted(info: RunStartInfo): void {
    console.log(`backend: ${info.backend} on ${info.device}; ${(info.parameterCount / 1e3).toFixed(0)} k parameters; ${info.totalIterations} iterations`);
  }
  iteration(iteration: number, metrics: Record<string, number>, _episodes: EpisodeReport[]): void {
    const success = metrics[METRIC];
    if (this.verbose) console.log(progressLine(iteration, metrics));
    if (success === undefined) return;
    const seconds = (performance.now() - this.started) / 1000;
    this.successes.set(iteration, success);
    const train = metrics['train/FrozenLakeNonSlip/success'];
    console.log(`iteration ${iteration}: validation success ${success.toFixed(3)}${train === undefined ? '' : `, train ${train.toFixed(3)}`} at ${seconds.toFixed(0)} s`);
    if (success >= TARGET && !this.firstAtTarget) this.firstAtTarget = { iteration, seconds };
  }
  checkpoint(report: CheckpointReport): void {
    this.checkpoints.set(report.iteration, report.path);
  }
  runEnded(): void {}

  get lastCheckpoint(): string | undefined {
    return [...this.checkpoints.values()].pop();
  }
}

/** One line per iteration, for judging a long run before its next validation. */
function progressLine(iteration: number, metrics: Record<string, number>): string {
  const figure = (key: string, digits = 3) => (metrics[key] === undefined ? '-' : metrics[key].toFixed(digits));
  return `  iteration ${iteration}: train success ${figure('train/FrozenLakeNonSlip/success')}, effective ${figure('train/FrozenLakeNonSlip/action_is_effective')}, entropy ${figure('actor/entropy')}, rollout ${figure('timing_s/rollout', 1)} s, update ${figure('timing_s/update', 1)} s`;
}

export default async function benchFrozenLake(overrides: string[] = []): Promise<void> {
  // --verbose prints every iteration, not only the validations.
  const verbose = overrides.includes('--verbose');
  const settings = overrides.filter((o) => o !== '--verbose');
  const config = loadRunConfig(CONFIG, settings);
  const forkConfig = loadRunConfig(CONFIG, [
    ...settings,
    ...FORK_OVERRIDES,
    `trainer.total_training_steps=${config.trainer.total_training_steps + FORK_ITERATIONS}`,
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'turnlab-bench-frozenlake-'));
  const sink = new ValidationLog(verbose);
  const start = performance.now();
  let evaluation: number | undefined;
  let evaluationAtTarget: number | undefined;
  try {
    await train({ config, sink, checkpointDir: join(dir, 'run'), log: (line) => console.log(line) });
    const forkFrom = sink.lastCheckpoint;
    if (!forkFrom) throw new Error('the run saved no checkpoint to fork from');
    console.log(`fork at iteration ${config.trainer.total_training_steps}: ${FORK_OVERRIDES.join(' ')} for ${FORK_ITERATIONS} iterations`);
    await train({ config: forkConfig, sink, checkpointDir: join(dir, 'fork'), resumeFrom: forkFrom, log: (line) => console.log(line) });
    const result = await evaluateCheckpoint(sink.lastCheckpoint!, { episodes: EVALUATION_EPISODES });
    evaluation = result.metrics[METRIC];
    // The policy that first read 0.9, on the same boards (when a checkpoint was saved there).
    const atTarget = sink.firstAtTarget && sink.checkpoints.get(sink.firstAtTarget.iteration);
    if (atTarget) evaluationAtTarget = (await evaluateCheckpoint(atTarget, { episodes: EVALUATION_EPISODES })).metrics[METRIC];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const seconds = (performance.now() - start) / 1000;
  const last = [...sink.successes.entries()].pop();
  const best = Math.max(...sink.successes.values());
  console.log(`final validation success: ${last ? `${last[1].toFixed(3)} at iteration ${last[0]}` : 'none (test_freq off)'}; best ${best.toFixed(3)}`);
  console.log(
    sink.firstAtTarget
      ? `first reached ${TARGET}: iteration ${sink.firstAtTarget.iteration}, ${sink.firstAtTarget.seconds.toFixed(0)} s into the run`
      : `never reached ${TARGET} within ${forkConfig.trainer.total_training_steps} iterations`,
  );
  console.log(`final policy on ${EVALUATION_EPISODES} boards from the first validation seed on: success ${evaluation?.toFixed(3)}`);
  if (evaluationAtTarget !== undefined) {
    console.log(`policy of iteration ${sink.firstAtTarget!.iteration} on the same ${EVALUATION_EPISODES} boards: success ${evaluationAtTarget.toFixed(3)}`);
  }
  console.log(`wall time: ${seconds.toFixed(0)} s (warm start included)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchFrozenLake(process.argv.slice(2));
  await releaseBackend();
}
