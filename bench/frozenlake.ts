/**
 * Trains configs/frozenlake-nonslip.yaml (a lake that does not slip, random-valid warm start,
 * then GRPO with a cosine learning rate), then forks its last checkpoint to go on at the
 * schedule's floor rate with more boards from random squares, as a researcher does with
 * `turnlab resume <run> --fork --set ...`.
 * Reports every validation (64 fixed boards, sampled at temperature 0.5 as RAGEN's evaluation),
 * the first iteration that reached 0.9, the success on 512 boards no run played of the policy at
 * the end of the schedule and of the fork's last one, and the wall time.
 * Run alone: npx tsx bench/frozenlake.ts (USAGE below for its options)
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { releaseBackend } from '../trainer-core/backend';
import { runAlone, unknownOption } from './lib/bench-args';
import { BenchArgumentError } from './lib/bench-errors';
import { tempFolder } from './lib/temp-folder';
import { loadRunConfig } from '../trainer-core/config';
import { evaluateCheckpoint } from '../trainer-core/train/evaluate';
import type { CheckpointReport, EpisodeReport, RunStartInfo, TrainingSink } from '../trainer-core/train/sink';
import { train } from '../trainer-core/train/trainer';

const CONFIG = fileURLToPath(new URL('../configs/frozenlake-nonslip.yaml', import.meta.url));
const TARGET = 0.9;
const METRIC = 'val/FrozenLakeNonSlip/success';
/**
 * The fork: the floor of the config's cosine schedule (0.2 x 1e-3), held, and three quarters of
 * the train boards starting on a random square instead of half: by iteration 200 the corner
 * boards are mostly solved, and the squares off the usual path are where the policy still falls.
 * The 64 validation boards read up to 0.1 above what the same policy solves on 512 others, so
 * the fork's worth is judged on the 512.
 */
const FORK_OVERRIDES = [
  'actor_rollout_ref.actor.optim.lr=2e-4',
  'actor_rollout_ref.actor.optim.lr_scheduler_type=constant',
  'es_manager.train.env_configs.n_groups=[4,12]',
];
const FORK_ITERATIONS = 40;
/** Boards for the evaluations: enough to tell 0.85 from 0.9 (standard error about 0.015). */
const EVALUATION_EPISODES = 512;

export const USAGE = `frozenlake: trains configs/frozenlake-nonslip.yaml, forks it at the schedule's floor, and plays both policies on unseen boards (about 20 min on 2 cores; a few with the small settings below)
npm run bench -- frozenlake [--verbose] [--fork-iterations N] [--episodes N] [key=value ...]
  --verbose            a line for every iteration, not only the validations
  --fork-iterations N  iterations of the fork (default ${FORK_ITERATIONS}; 0: no fork)
  --episodes N         unseen boards each policy plays at the end (default ${EVALUATION_EPISODES})
  key=value            config overrides, as turnlab train --set (e.g. trainer.total_training_steps=4 warm_start.steps=20)
A quick look: npm run bench -- frozenlake trainer.total_training_steps=2 warm_start.steps=20 --fork-iterations 1 --episodes 16`;

export interface FrozenLakeArgs {
  verbose: boolean;
  forkIterations: number;
  episodes: number;
  overrides: string[];
}

export function parseFrozenLakeArgs(args: readonly string[]): FrozenLakeArgs {
  const parsed: FrozenLakeArgs = { verbose: false, forkIterations: FORK_ITERATIONS, episodes: EVALUATION_EPISODES, overrides: [] };
  const count = (flag: string, text: string | undefined, least: number): number => {
    if (text === undefined || !/^\d+$/.test(text) || Number(text) < least) {
      throw new BenchArgumentError(`${flag} ${text === undefined ? 'wants a value' : `'${text}'`}: a whole number of ${least} or more (e.g. ${flag} ${least + 1})`);
    }
    return Number(text);
  };
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === '--verbose') parsed.verbose = true;
    else if (word === '--fork-iterations') parsed.forkIterations = count(word, args[++i], 0);
    else if (word === '--episodes') parsed.episodes = count(word, args[++i], 1);
    else if (word.startsWith('-')) {
      throw unknownOption(word, ['--verbose', '--fork-iterations', '--episodes']);
    } else if (!word.includes('=')) {
      throw new BenchArgumentError(`'${word}' is not a key=value override (e.g. trainer.total_training_steps=4), nor an option (--verbose, --fork-iterations, --episodes)`);
    } else parsed.overrides.push(word);
  }
  return parsed;
}
/** Far past every train and validation seed of the run, so the evaluation boards are new to it. */
const EVALUATION_SEED = 100_000;

/** Prints each validation as it lands and remembers what the report needs. */
class ValidationLog implements TrainingSink {
  readonly successes = new Map<number, number>();
  private readonly started = performance.now();
  firstAtTarget: { iteration: number; seconds: number } | null = null;
  readonly checkpoints = new Map<number, string>();

  constructor(
    private readonly verbose: boolean,
    private readonly trainTags: string[],
  ) {}

  runStarted(info: RunStartInfo): void {
    console.log(`backend: ${info.backend} on ${info.device}; ${(info.parameterCount / 1e3).toFixed(0)} k parameters; ${info.totalIterations} iterations`);
  }
  iteration(iteration: number, metrics: Record<string, number>, _episodes: EpisodeReport[]): void {
    const success = metrics[METRIC];
    if (this.verbose) console.log(progressLine(iteration, metrics));
    if (success === undefined) return;
    const seconds = (performance.now() - this.started) / 1000;
    this.successes.set(iteration, success);
    const train = this.trainTags.map((tag) => metrics[`train/${tag}/success`]);
    const trainText = train.every((x) => x !== undefined) ? `, train ${train.map((x) => x.toFixed(3)).join(' / ')} (${this.trainTags.join(' / ')})` : '';
    console.log(`iteration ${iteration}: validation success ${success.toFixed(3)}${trainText} at ${seconds.toFixed(0)} s`);
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

export default async function benchFrozenLake(args: string[] = []): Promise<void> {
  const { verbose, forkIterations, episodes, overrides: settings } = parseFrozenLakeArgs(args);
  const config = loadRunConfig(CONFIG, settings);
  const forkConfig = loadRunConfig(CONFIG, [
    ...settings,
    ...FORK_OVERRIDES,
    `trainer.total_training_steps=${config.trainer.total_training_steps + forkIterations}`,
  ]);
  const temp = tempFolder('turnlab-bench-frozenlake-');
  const dir = temp.dir;
  const sink = new ValidationLog(verbose, config.es_manager.train.env_configs.tags);
  const start = performance.now();
  const evaluations: { iteration: number; success: number }[] = [];
  const evaluate = async (checkpoint: string) => {
    const result = await evaluateCheckpoint(checkpoint, { episodes, seed: EVALUATION_SEED });
    evaluations.push({ iteration: result.iteration, success: result.metrics[METRIC] });
  };
  try {
    await train({ config, sink, checkpointDir: join(dir, 'run'), log: (line) => console.log(line) });
    const forkFrom = sink.lastCheckpoint;
    if (!forkFrom) throw new Error('the run saved no checkpoint to fork from');
    await evaluate(forkFrom);
    if (forkIterations > 0) {
      console.log(`fork at iteration ${config.trainer.total_training_steps}: ${FORK_OVERRIDES.join(' ')} for ${forkIterations} iterations`);
      await train({ config: forkConfig, sink, checkpointDir: join(dir, 'fork'), resumeFrom: forkFrom, log: (line) => console.log(line) });
      await evaluate(sink.lastCheckpoint!);
    }
  } finally {
    temp.remove();
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
  for (const { iteration, success } of evaluations) {
    console.log(`policy of iteration ${iteration} on ${episodes} unseen boards (seeds from ${EVALUATION_SEED}): success ${success.toFixed(3)}`);
  }
  console.log(`wall time: ${seconds.toFixed(0)} s (warm start and evaluations included)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runAlone('frozenlake', USAGE, benchFrozenLake);
  await releaseBackend();
}
