/**
 * `npm run bench -- learning [config...] [--seeds 0,1,2] [--estimators grpo,gigpo,bi_level_gae]
 * [--shaping off,0.1] [--episodes 1024] [--data-dir DIR] [--set k=v]...`: for each named config
 * (`configs/<name>.yaml`; default bandit) and seed (default 0-4), trains the config's warm start
 * once (its policy kept as iter-0), then each variant's RL as a fork of it: every estimator of
 * `--estimators` (default: the config's own) crossed with every shaping of `--shaping` (off, or a
 * coefficient of potential-based shaping from the env's solver, `algorithm.turn_shaping`, with the
 * config's own gamma; default: the config's own). Each final checkpoint and the warm start are
 * played once on 1024 held-out episodes at temperature 0.5, as RAGEN evaluates, and stored beside
 * the runs in a TurnLab data folder (default bench/results/learning). Prints a row per variant
 * and seed: the warm start alone, after RL, the paired gain with its standard error
 * (bench/lib/success-gain.ts), optimal success, the warm start's and the RL's wall times; then the
 * mean over seeds of each variant. Finished runs and evaluations in the data folder are reused,
 * so an interrupted comparison carries on where it stopped (bench/lib/shared-warm-start.ts).
 * A config without a warm start trains each variant from scratch, with no warm-start figures.
 * Each row's `turnlab eval` command plays the same checkpoint on the same episodes again.
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openStore, type Store } from '../main/store/db';
import { releaseBackend } from '../trainer-core/backend';
import { estimatorNames } from '../trainer-core/algo/estimator-registry';
import { EVALUATION_EPISODES, EVALUATION_OVERRIDES, EVALUATION_SEED, evalCommand, heldOut, meanFigure, pairedSuccesses } from './lib/held-out-evaluation';
import { runAlone, unknownOption } from './lib/bench-args';
import { BenchArgumentError } from './lib/bench-errors';
import { checkVariantEnvs, planOf, type SeedPlan, type VariantPlan, type Warm } from './lib/learning-plan';
import { BI_LEVEL_GAE, estimatorOverrides, parseShaping, refuseVariedSets, variantsOf, variedKeys } from './lib/learning-variants';
import { forkedVariant, fromWarmPolicyOverrides, scratchVariant, sharedWarmStart, warmStartOverrides, type TwinMode } from './lib/shared-warm-start';
import { formatGain, meanSuccessGain, pairedSuccessGain } from './lib/success-gain';

export { EVALUATION_EPISODES, EVALUATION_OVERRIDES, EVALUATION_SEED, evalCommand, estimatorOverrides, meanFigure };
const DEFAULT_DATA_DIR = fileURLToPath(new URL('./results/learning', import.meta.url));

/** `--estimators` names: every adv_estimator, and PPO with turn-level GAE. */
export const BENCH_ESTIMATORS: readonly string[] = [...estimatorNames(), BI_LEVEL_GAE];

export interface LearningArgs {
  configs: string[];
  seeds: number[];
  /** Empty: each config's own estimator. */
  estimators: string[];
  /** Shaping coefficients, null for off; null as a whole: each config's own `algorithm.turn_shaping`. */
  shaping: (number | null)[] | null;
  episodes: number;
  dataDir: string;
  /** `--set key=value` overrides for every run, as `turnlab train --set`. */
  overrides: string[];
}

export function parseLearningArgs(args: string[]): LearningArgs {
  const configs: string[] = [];
  let seeds = [0, 1, 2, 3, 4];
  let estimators: string[] = [];
  let shaping: (number | null)[] | null = null;
  let episodes = EVALUATION_EPISODES;
  let dataDir = DEFAULT_DATA_DIR;
  const overrides: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--seeds') {
      const text = args[++i] ?? '';
      seeds = text.split(',').map(Number);
      if (!text || seeds.some((s) => !Number.isInteger(s) || s < 0)) throw new BenchArgumentError(`--seeds wants non-negative integers separated by commas, e.g. --seeds 0,1,2 (got "${text}")`);
    } else if (args[i] === '--estimators') {
      const text = args[++i] ?? '';
      estimators = text.split(',');
      const unknown = estimators.find((e) => !(BENCH_ESTIMATORS as readonly string[]).includes(e));
      if (!text || unknown !== undefined) throw new BenchArgumentError(`--estimators wants names from ${BENCH_ESTIMATORS.join(', ')} separated by commas, e.g. --estimators grpo,gigpo,bi_level_gae (got "${unknown ?? text}")`);
    } else if (args[i] === '--shaping') {
      shaping = parseShaping(args[++i] ?? '');
    } else if (args[i] === '--episodes') {
      const text = args[++i] ?? '';
      episodes = Number(text);
      if (!/^\d+$/.test(text) || episodes < 2) throw new BenchArgumentError(`--episodes wants a whole number of held-out episodes of at least 2, e.g. --episodes 1024 (got "${text}")`);
    } else if (args[i] === '--data-dir') {
      const text = args[++i];
      if (!text) throw new BenchArgumentError('--data-dir wants a folder, e.g. --data-dir /tmp/turnlab-learning');
      dataDir = resolve(text);
    } else if (args[i] === '--set') {
      const text = args[++i];
      if (!text?.includes('=')) throw new BenchArgumentError(`--set wants key=value, e.g. --set model.d_ff=512 (got "${text ?? ''}")`);
      overrides.push(text);
    } else if (args[i].startsWith('--')) {
      throw unknownOption(args[i], ['--seeds', '--estimators', '--shaping', '--episodes', '--data-dir', '--set']);
    } else configs.push(args[i]);
  }
  refuseVariedSets(overrides, variedKeys(estimators, shaping));
  return { configs: configs.length ? configs : ['bandit'], seeds, estimators, shaping, episodes, dataDir, overrides };
}

const wallTime = (seconds: number | null) => (seconds === null ? 'reused' : `${seconds.toFixed(0)} s`);

async function ensureWarm(store: Store, plan: SeedPlan, overrides: string[], episodes: number, mode: TwinMode): Promise<Warm | null> {
  if (plan.warm || !plan.warmName) return plan.warm;
  const trained = await sharedWarmStart(store, plan.path, plan.warmName, warmStartOverrides(overrides, plan.seed, plan.iteratesAfterWarm), logFor(plan.warmName), mode);
  if (!trained) return null;
  plan.warm = { trained, result: await heldOut(store, trained.checkpoint, episodes) };
  console.log(`${plan.warmName}: run ${trained.run.id}, warm start ${wallTime(trained.seconds)}, ${meanFigure(plan.warm.result.metrics, 'success')} of the held-out episodes`);
  return plan.warm;
}

/** Trains (or finds) one variant and fills in its row; false when deferred to another process. */
async function runVariant(store: Store, v: VariantPlan, overrides: string[], episodes: number, dataDir: string, mode: TwinMode): Promise<boolean> {
  const { plan } = v;
  const warm = await ensureWarm(store, plan, overrides, episodes, mode);
  if (plan.warmName && !warm) return false;
  const log = logFor(v.runName);
  const trained = !warm
    ? await scratchVariant(store, plan.path, v.runName, v.overrides, log, mode)
    : plan.iteratesAfterWarm
      ? await scratchVariant(store, plan.path, v.runName, fromWarmPolicyOverrides(v.overrides, resolve(dataDir, warm.trained.checkpoint.path)), log, mode)
      : await forkedVariant(store, warm.trained.checkpoint, v.runName, v.overrides, log, mode);
  if (!trained) return false;
  const result = await heldOut(store, trained.checkpoint, episodes);
  let gainText = '-';
  if (warm) {
    v.gain = pairedSuccessGain(...pairedSuccesses(warm.result.outcomes, result.outcomes));
    gainText = formatGain(v.gain);
  }
  const warmFigure = warm ? meanFigure(warm.result.metrics, 'success') : '-';
  v.row = `| ${plan.name} | ${v.estimator} | ${v.shaping} | ${plan.seed} | ${warmFigure} | ${meanFigure(result.metrics, 'success')} | ${gainText} | ${meanFigure(result.metrics, 'optimal_success')} | ${warm ? wallTime(warm.trained.seconds) : '-'} | ${wallTime(trained.seconds)} |`;
  const origin = !warm ? '' : plan.iteratesAfterWarm ? ` (expert iteration from run ${warm.trained.run.id}'s policy)` : ` (fork of run ${warm.trained.run.id})`;
  console.log(`${v.row}   run ${trained.run.id}${origin}, checkpoint of iteration ${result.iteration}`);
  v.command = `${v.runName}: ${evalCommand(dataDir, trained.run.id, episodes)}`;
  return true;
}

export const USAGE = `learning: held-out success of each config's warm start and of RL after it, the gain with its standard error (bandit: under a minute a seed; FrozenLake, Sokoban: an hour and more a seed on 2 cores)
npm run bench -- learning [config...] [--seeds 0,1,2] [--estimators grpo,gigpo,bi_level_gae] [--shaping off,0.1] [--episodes 1024] [--data-dir DIR] [--set key=value]...
  config        configs/<name>.yaml, several allowed (default bandit)
  --seeds       trainer.seed of each run (default 0,1,2,3,4)
  --estimators  ${BENCH_ESTIMATORS.join(', ')} (default: the config's own)
  --shaping     off, or potential-based shaping coefficients (algorithm.turn_shaping; default: the config's own)
  --episodes    held-out episodes each policy plays (default ${EVALUATION_EPISODES})
  --data-dir    the TurnLab data folder runs and evaluations are kept and reused in (default bench/results/learning)
  --set         an override of every run, as turnlab train --set`;

export default async function benchLearning(args: string[] = []): Promise<void> {
  const { configs, seeds, estimators, shaping, episodes, dataDir, overrides } = parseLearningArgs(args);
  const { seedPlans, variantPlans } = planOf(configs, seeds, variantsOf(estimators, shaping), overrides);
  await checkVariantEnvs(variantPlans);
  const store = openStore(dataDir, { create: true });
  try {
    for (const plan of seedPlans) await ensureWarm(store, plan, overrides, episodes, 'defer');
    const deferred: VariantPlan[] = [];
    for (const v of variantPlans) if (!(await runVariant(store, v, overrides, episodes, dataDir, 'defer'))) deferred.push(v);
    for (const v of deferred) await runVariant(store, v, overrides, episodes, dataDir, 'wait');
  } finally {
    store.close();
  }
  const rows = [
    '| config | estimator | shaping | seed | warm start alone | after RL | gain ± s.e. | optimal success | warm start time | RL time |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...variantPlans.map((v) => v.row ?? ''),
  ];
  const summary: string[] = ['| config | estimator | shaping | seeds | warm start alone | after RL | gain ± s.e. (over seeds) |', '| --- | --- | --- | --- | --- | --- | --- |'];
  const groups = new Map<string, VariantPlan[]>();
  for (const v of variantPlans) {
    const key = `| ${v.plan.name} | ${v.estimator} | ${v.shaping} |`;
    groups.set(key, [...(groups.get(key) ?? []), v]);
  }
  for (const [key, vs] of groups) {
    const gains = vs.flatMap((v) => (v.gain ? [v.gain] : []));
    if (!gains.length) continue;
    const m = meanSuccessGain(gains);
    summary.push(`${key} ${gains.length} | ${m.warm.toFixed(3)} | ${m.after.toFixed(3)} | ${formatGain(m)} |`);
  }
  console.log(`\nfinal policies on ${episodes} held-out episodes (seeds from ${EVALUATION_SEED}) at temperature 0.5 (wall times: "reused" when a finished run was found in the data folder):\n${rows.join('\n')}`);
  const iterated = [...new Set(seedPlans.filter((p) => p.own.expert_iteration.rounds > 0 && !p.iteratesAfterWarm).map((p) => p.name))];
  if (iterated.length) {
    console.log(`\n${iterated.join(', ')}: "warm start alone" is the policy after expert iteration (expert_iteration.rounds), which learns from the reward alone; "after RL" adds the PPO iterations`);
  }
  const iteratedAfter = [...new Set(seedPlans.filter((p) => p.iteratesAfterWarm).map((p) => p.name))];
  if (iteratedAfter.length) {
    console.log(`\n${iteratedAfter.join(', ')}: "warm start alone" is the demonstrations' policy; "after RL" is expert iteration on the policy's own successes (expert_iteration.rounds) from it, then the PPO iterations`);
  }
  if (summary.length > 2) console.log(`\nmean over seeds (the gain's standard error is the spread of the seeds' gains; one seed: its episodes'):\n${summary.join('\n')}`);
  console.log(`\nruns, checkpoints and evaluations kept in ${dataDir} (node bin/turnlab.js --data-dir ${dataDir} serve shows them); to play a final policy again:\n${variantPlans.map((v) => v.command).join('\n')}`);
}

function logFor(runName: string): (line: string) => void {
  return (line) => (line.startsWith('warning') ? console.log(`${runName}: ${line}`) : undefined);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runAlone('learning', USAGE, benchLearning);
  await releaseBackend();
}
