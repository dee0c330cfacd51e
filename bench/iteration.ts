/**
 * Wall time of training iterations of the ready configs, the new code beside the code issue 18
 * started from (commit BASELINE, extracted from git into a temporary folder) and beside itself
 * with prefix reuse off, in the same run so a shared machine's load hits all alike.
 *
 * Per config: one warm-started iteration is trained once (the policy every variant starts from),
 * then each variant trains two iterations from it in its own process (bench/lib/iteration-run.ts)
 * and reports rollout and update seconds, tensor count, RSS and peak RSS after each iteration.
 * Ratios are baseline time / new time over the iterations both finished.
 *
 * CPU seconds per iteration are printed beside wall seconds and give the single-thread ratios:
 * on a machine other people's jobs keep busy, wall time measures their load as much as this
 * code. Worker threads (`trainer.workers: auto`) spend about the same CPU seconds on more cores,
 * so their gain is the wall-time ratio, beside the same code with `trainer.workers: 1`.
 *
 * Run alone: npx tsx bench/iteration.ts (USAGE lists the options)
 * (--start skips the starting iteration of a config and starts every variant from checkpoint DIR.)
 *
 * `--pretrained [config names, default frozenlake]`: a pretrained policy instead (the tiny
 * random-weight Qwen2 folder with the real Qwen vocabulary, LoRA rank 4, micro-batch 4), two
 * iterations with `trainer.workers: 1` and with `auto`, and the ratio of their times.
 *
 * `--ragen PRESET [--models DIR] [--backend NAME] [--small] [key=value ...]`: issue 37's point 4,
 * two GRPO iterations at RAGEN's batch (bench/configs/sokoban-bilevel-gae.yaml: 8 groups x 16
 * Sokoban episodes of 5 turns) with a random-weight folder of PRESET's shape
 * (scripts/hf-random-model.ts; qwen2.5-0.5b on a GPU, tiny-qwen2 to check it on llvmpipe) and
 * LoRA rank 8 on a float32 base (`actor_rollout_ref.model.dtype=auto` after it measures the
 * 16-bit base), on WebGPU unless --backend says otherwise; `--small` takes 2 groups x 2 episodes.
 * The folder is written under --models (kept there for the next run) or a temporary folder;
 * key=value overrides come last (to compare a setting). Prints the tokens the config implies,
 * then each iteration's phases (iteration-run.ts --phases): wall seconds, dispatches, readbacks,
 * pipelines compiled, tokens, tensors, GPU memory, peak RSS.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BACKENDS } from '../trainer-core/backend-names';
import { PRESETS } from '../scripts/hf-random-model';
import { BenchArgumentError } from './lib/bench-errors';
import { notAmong, oneOf, runAlone, unknownOption, valueAfter } from './lib/bench-args';
import { dateAndMachine } from './lib/machine';
import { tempFolder } from './lib/temp-folder';

/** The commit issue 18 (speed) started from. */
const BASELINE = 'dc0b9bde5a89e3350120905c0a803974670ebb74';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNNER = join(ROOT, 'bench/lib/iteration-run.ts');
const ITERATIONS = 2;
const QUIET = ['trainer.test_freq=0', 'trainer.val_before_train=false', 'trainer.save_freq=0'];

interface IterationLine {
  iteration: number;
  /** CPU seconds of the whole iteration (rollout, update and the trainer's bookkeeping). */
  cpu: number;
  rollout: number;
  update: number;
  tensors: number;
  rssMb: number;
  peakRssMb: number;
}

interface Variant {
  name: string;
  root: string;
  overrides: string[];
}

interface Outcome {
  lines: IterationLine[];
  error: string | null;
}

/** The children running now: a signal stops them before the temporary folder they write in goes. */
const running = new Set<ChildProcess>();

/**
 * Runs iteration-run.ts and reads its `ITERATION {json}` lines. `show`: its other lines (the
 * phase tables) and its log go to this terminal as they come, so a time limit that stops the run
 * still leaves the finished iterations' lines; otherwise they are kept for the error.
 */
function runRunner(loader: string[], runnerArgs: string[], show: boolean): Promise<Outcome & { exit: string | null }> {
  const child = spawn(process.execPath, [...loader, RUNNER, ...runnerArgs], { cwd: ROOT, stdio: ['ignore', 'pipe', show ? 'inherit' : 'pipe'] });
  running.add(child);
  const lines: IterationLine[] = [];
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line.startsWith('ITERATION ')) lines.push(JSON.parse(line.slice('ITERATION '.length)) as IterationLine);
    else if (show) console.log(line);
  });
  return new Promise((done) => {
    child.on('close', (status, signal) => {
      running.delete(child);
      if (status === 0) return done({ lines, error: null, exit: null });
      // The error's own line, not the runtime's version line Node prints after an uncaught error.
      const errorLine = stderr.split('\n').find((line) => /^\w*Error\b/.test(line)) ?? stderr.trim().split('\n').pop();
      const error = /memory access out of bounds|out of memory/i.test(stderr) ? 'wasm out of memory' : errorLine || `exit ${status ?? signal}`;
      done({ lines, error, exit: String(status ?? signal) });
    });
  });
}

function runChild(root: string, config: string, overrides: string[], checkpoints: string): Promise<Outcome> {
  return runRunner(['--import', 'tsx'], ['--root', root, '--config', config, '--checkpoints', checkpoints, ...overrides], false);
}

/** The baseline's trainer-core and configs in a temporary folder, or null when git cannot give them. */
function extractBaseline(into: string): string | null {
  try {
    const archive = execFileSync('git', ['archive', BASELINE, 'trainer-core', 'configs'], { cwd: ROOT, maxBuffer: 256 * 2 ** 20 });
    execFileSync('tar', ['-x', '-C', into], { input: archive });
    symlinkSync(join(ROOT, 'node_modules'), join(into, 'node_modules'));
    execFileSync('cp', [join(ROOT, 'package.json'), join(into, 'package.json')]);
    return into;
  } catch (error) {
    console.log(`baseline ${BASELINE.slice(0, 7)} not available from git (${(error as Error).message.split('\n')[0]}); ratios skipped`);
    return null;
  }
}

const seconds = (x: number) => `${x.toFixed(1).padStart(6)} s`;

function report(name: string, outcome: Outcome): void {
  for (const l of outcome.lines) {
    console.log(
      `  ${name.padEnd(22)} iteration ${l.iteration}: CPU ${seconds(l.cpu)}; wall: rollout ${seconds(l.rollout)}, update ${seconds(l.update)}; ${l.tensors} tensors, RSS ${l.rssMb.toFixed(0)} MB (peak ${l.peakRssMb.toFixed(0)} MB)`,
    );
  }
  if (outcome.error) console.log(`  ${name.padEnd(22)} failed after ${outcome.lines.length} iteration(s): ${outcome.error}`);
}

/** Baseline time over new time, on the iterations both finished: CPU, then wall per phase. */
function ratio(base: Outcome, next: Outcome): string {
  const n = Math.min(base.lines.length, next.lines.length);
  if (n === 0) return 'n/a';
  const total = (o: Outcome, key: 'cpu' | 'rollout' | 'update' | 'both') =>
    o.lines.slice(0, n).reduce((sum, l) => sum + (key === 'both' ? l.rollout + l.update : l[key]), 0);
  const r = (key: 'cpu' | 'rollout' | 'update' | 'both') => (total(base, key) / total(next, key)).toFixed(2);
  return `${r('cpu')}x in CPU time (wall: ${r('both')}x, rollout ${r('rollout')}x, update ${r('update')}x; ${n} iteration${n > 1 ? 's' : ''})`;
}

/**
 * Episodes of the pretrained comparison: 8 groups of 4 (the shipped configs' 256 episodes take
 * minutes an iteration with a 151,936-id vocabulary on two cores), in mini-batches of 32, so an
 * update is 8 micro-batches of 4 to share between the threads.
 */
const PRETRAINED_SIZE = ['es_manager.train.env_groups=8', 'es_manager.train.env_configs.n_groups=[8]', 'es_manager.train.group_size=4', 'ppo_mini_batch_size=32', 'rollout_filter_ratio=1'];

async function benchPretrainedWorkers(names: string[], work: string): Promise<void> {
  const { writeRandomHfModel } = await import('../scripts/hf-random-model');
  const model = await writeRandomHfModel(join(work, 'tiny-qwen2'), PRESETS['tiny-qwen2'], { seed: 1 });
  for (const name of names) {
    const config = join(ROOT, 'configs', `${name}.yaml`);
    const overrides = [
      `actor_rollout_ref.model.path=${model}`,
      'actor_rollout_ref.model.lora_rank=4',
      'actor_rollout_ref.model.lora_alpha=8',
      'micro_batch_size_per_gpu=4',
      'warm_start.steps=0',
      ...PRETRAINED_SIZE,
      `trainer.total_training_steps=${ITERATIONS}`,
      ...QUIET,
    ];
    console.log(`\n${name}.yaml with the tiny Qwen2 folder (${overrides.slice(1).join(' ')})`);
    const one = await runChild(ROOT, config, [...overrides, 'trainer.workers=1'], join(work, `${name}-pretrained-1`));
    report('pretrained, workers 1', one);
    const auto = await runChild(ROOT, config, [...overrides, 'trainer.workers=auto'], join(work, `${name}-pretrained-auto`));
    report('pretrained, workers auto', auto);
    console.log(`  ${name}, pretrained: workers auto vs workers 1 ${ratio(one, auto)}; load average now ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  }
}

/** RAGEN's batch is the config's 8 groups, 16 episodes each (the config itself plays 8). */
const RAGEN_BATCH = ['es_manager.train.group_size=16'];
const SMALL_BATCH = ['es_manager.train.env_groups=2', 'es_manager.train.group_size=2', 'es_manager.train.env_configs.n_groups=[2]'];

interface RagenOptions {
  preset: string;
  models: string | null;
  backend: string;
  small: boolean;
  /** Config overrides after the point's own (key=value), e.g. a larger micro-batch to compare. */
  overrides: string[];
}

async function benchRagenBatch(o: RagenOptions, work: string): Promise<void> {
  const { writeRandomHfModel } = await import('../scripts/hf-random-model');
  const folder = join(o.models ?? work, o.preset);
  const writeStart = performance.now();
  // The tokenizer's config is the folder's last file: a write cut short is written again.
  if (!existsSync(join(folder, 'tokenizer_config.json'))) await writeRandomHfModel(folder, PRESETS[o.preset], { seed: 1 });
  console.log(`model folder ${folder} (${((performance.now() - writeStart) / 1000).toFixed(1)} s to write or find)`);
  const config = join(ROOT, 'bench/configs/sokoban-bilevel-gae.yaml');
  const overrides = [
    `actor_rollout_ref.model.path=${folder}`,
    'actor_rollout_ref.model.lora_rank=8',
    // A float32 base: the device's decoding kernels read float32 weights, and a 16-bit base (the
    // folder is BF16; dtype auto keeps it 16-bit) decodes through the forward pass instead.
    'actor_rollout_ref.model.dtype=float32',
    'algorithm.adv_estimator=grpo',
    'algorithm.bi_level_gae=false',
    ...(o.small ? SMALL_BATCH : RAGEN_BATCH),
    'warm_start.steps=0',
    `trainer.backend=${o.backend}`,
    `trainer.total_training_steps=${ITERATIONS}`,
    ...QUIET,
    ...o.overrides,
  ];
  const { loadRunConfig } = await import('../trainer-core/config');
  const cfg = loadRunConfig(config, overrides);
  const episodes = cfg.es_manager.train.env_groups * cfg.es_manager.train.group_size;
  const turns = cfg.agent_proxy.max_turn;
  const reply = cfg.actor_rollout_ref.rollout.response_length;
  const kept = Math.max(1, Math.floor(cfg.rollout_filter_ratio * cfg.es_manager.train.env_groups + 1e-9)) * cfg.es_manager.train.group_size;
  console.log(
    `sokoban-bilevel-gae.yaml ${overrides.slice(1).join(' ')}\n` +
      `${episodes} episodes x ${turns} turns x ${reply} tokens: at most ${(episodes * turns * reply).toLocaleString('en-US')} tokens sampled in ${turns * reply} decoding steps of ${episodes} rows ` +
      `(a random policy runs every reply to the limit); the update trains ${kept} episodes (rollout_filter_ratio ${cfg.rollout_filter_ratio}, ` +
      `${cfg.actor_rollout_ref.actor.ppo_epochs} epoch, micro-batches of ${cfg.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu} rows), ` +
      `${(kept * turns * reply).toLocaleString('en-US')} scored tokens in rows of up to ${cfg.model.context_length}`,
  );
  // The child loads TypeScript as this process does (the GPU machine's pack holds those files).
  const loader = process.execArgv.length > 0 ? process.execArgv : ['--import', 'tsx'];
  const result = await runRunner(loader, ['--phases', '--root', ROOT, '--config', config, '--checkpoints', join(work, 'checkpoints'), ...overrides], true);
  if (result.exit !== null) throw new Error(`bench iteration --ragen: the run exited with ${result.exit}`);
}

const SPEED_CONFIGS = ['frozenlake-ragen-prompt', 'sokoban-bilevel-gae'];
const OPTIONS = ['--pretrained', '--ragen', '--start', '--models', '--backend', '--small'];
const RAGEN_ONLY = ['--models', '--backend', '--small'];

export const USAGE = `iteration: seconds per training iteration of the ready configs, new code beside the baseline ${BASELINE.slice(0, 7)}, prefix reuse off and workers auto (a few minutes on 2 cores: about 90 s a config)
usage: npm run bench -- iteration [config ...] [--start config=DIR ...]
       npm run bench -- iteration --pretrained [config ...]
       npm run bench -- iteration --ragen PRESET [--models DIR] [--backend B] [--small] [key=value ...]
  config      default ${SPEED_CONFIGS.join(' ')} (bench/configs, then configs/)
  --start     config=DIR: start that config's variants from the checkpoint folder DIR instead of training one iteration first
  --pretrained  the tiny random-weight Qwen2 folder as the policy, workers 1 against auto (configs/, default frozenlake)
  --ragen     two GRPO iterations at RAGEN's batch with a random-weight folder of PRESET's shape
              (one of ${Object.keys(PRESETS).join(', ')}), with the phases of each; tiny-qwen2 --backend wasm --small takes about 15 s
  --models    with --ragen: keep the model folder under DIR for the next run (default a temporary folder)
  --backend   with --ragen: ${BACKENDS.join(', ')}; default webgpu
  --small     with --ragen: 2 groups x 2 episodes
  key=value   with --ragen: config overrides after the bench's own`;

export interface IterationArgs {
  mode: 'speed' | 'pretrained' | 'ragen';
  /** Config names; none in the ragen mode. */
  names: string[];
  /** Checkpoint folders to start configs from (--start), speed mode only. */
  starts: Map<string, string>;
  ragen: RagenOptions | null;
}

const configNames = (folder: string) => (existsSync(folder) ? readdirSync(folder).filter((n) => n.endsWith('.yaml')).map((n) => n.replace(/\.yaml$/, '')) : []);

/** `args`: the words after `iteration`. Checks every one before a baseline is extracted or a child starts. */
export function parseIterationArgs(args: readonly string[]): IterationArgs {
  const starts = new Map<string, string>();
  const names: string[] = [];
  const ragenOnly: string[] = [];
  let pretrained = false;
  let preset: string | null = null;
  // The --ragen options may come before --ragen as well as after it.
  const options = { models: null as string | null, backend: 'webgpu' as RagenOptions['backend'], small: false, overrides: [] as string[] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg.startsWith('-') && !OPTIONS.includes(arg)) throw unknownOption(arg, OPTIONS);
    if (RAGEN_ONLY.includes(arg) || (!arg.startsWith('-') && arg.includes('='))) ragenOnly.push(arg);
    if (arg === '--pretrained') {
      pretrained = true;
    } else if (arg === '--ragen') {
      preset = args[++i] ?? null;
      if (preset === null || preset.startsWith('-') || preset.includes('=')) {
        throw new BenchArgumentError(`--ragen needs a model preset first, e.g. --ragen tiny-qwen2 --backend wasm --small (presets: ${Object.keys(PRESETS).join(', ')})`);
      }
      if (!PRESETS[preset]) throw notAmong('--ragen: unknown preset', preset, Object.keys(PRESETS));
    } else if (arg === '--models') {
      options.models = valueAfter(args, i++, arg, 'a folder to keep the model in, e.g. --models /tmp/turnlab-models');
    } else if (arg === '--backend') {
      options.backend = oneOf(arg, valueAfter(args, i++, arg, `one of ${BACKENDS.join(', ')}`), BACKENDS);
    } else if (arg === '--small') {
      options.small = true;
    } else if (arg === '--start') {
      const value = valueAfter(args, i++, arg, 'config=DIR, a checkpoint folder, e.g. --start sokoban-bilevel-gae=/tmp/run/iter-1');
      const at = value.indexOf('=');
      const [name, dir] = at < 0 ? [value, ''] : [value.slice(0, at), value.slice(at + 1)];
      if (!name || !dir) throw new BenchArgumentError(`--start ${value}: give config=DIR (a checkpoint folder), e.g. --start ${name || 'sokoban-bilevel-gae'}=/tmp/run/iter-1`);
      if (!existsSync(dir)) throw new BenchArgumentError(`--start ${value}: no folder ${dir}`);
      starts.set(name, dir);
    } else if (arg.includes('=')) {
      options.overrides.push(arg);
    } else {
      names.push(arg);
    }
  }
  const ragen: RagenOptions | null = preset === null ? null : { preset, ...options };
  const mode = ragen ? 'ragen' : pretrained ? 'pretrained' : 'speed';
  if (ragen && pretrained) throw new BenchArgumentError('--ragen and --pretrained are two benches: run one at a time');
  if (!ragen && ragenOnly.length > 0) throw new BenchArgumentError(`${ragenOnly[0]} goes with --ragen PRESET, e.g. --ragen tiny-qwen2 ${ragenOnly[0]}`);
  if (ragen && names.length > 0) throw new BenchArgumentError(`--ragen runs bench/configs/sokoban-bilevel-gae.yaml and takes no config names (got ${names.join(', ')}); change it with key=value`);
  if (mode !== 'speed' && starts.size > 0) throw new BenchArgumentError(`--start is for the default mode (new code beside the baseline), not --${mode}`);
  const known = mode === 'speed' ? [...new Set([...configNames(join(ROOT, 'bench/configs')), ...configNames(join(ROOT, 'configs'))])] : configNames(join(ROOT, 'configs'));
  for (const name of names) if (!known.includes(name)) throw notAmong(mode === 'speed' ? 'unknown config' : '--pretrained: unknown config', name, known);
  if (names.length === 0 && mode !== 'ragen') names.push(...(mode === 'speed' ? SPEED_CONFIGS : ['frozenlake']));
  for (const name of starts.keys()) if (!names.includes(name)) throw new BenchArgumentError(`--start ${name}=...: ${name} is not among the configs this run trains (${names.join(', ')})`);
  return { mode, names, starts, ragen };
}

/** `args`: the words after `iteration` (`npm run bench -- iteration --pretrained`). */
export default async function benchIteration(args: readonly string[]): Promise<void> {
  const { mode, names, starts, ragen } = parseIterationArgs(args);
  const stopChildren = () => {
    for (const child of running) child.kill();
  };
  // Before the folder's own handlers, which remove it and exit: no child writes in it after.
  process.on('SIGINT', stopChildren).on('SIGTERM', stopChildren);
  const work = tempFolder('turnlab-bench-iteration-');
  try {
    if (ragen) {
      console.log(dateAndMachine());
      await benchRagenBatch(ragen, work.dir);
    } else if (mode === 'pretrained') {
      console.log(`${dateAndMachine()}; ${ITERATIONS} iterations per variant`);
      await benchPretrainedWorkers(names, work.dir);
    } else {
      console.log(`${dateAndMachine()}; ${ITERATIONS} iterations per variant after one warm-started iteration`);
      await benchSpeed(names, starts, work.dir);
    }
  } finally {
    work.remove();
    process.off('SIGINT', stopChildren).off('SIGTERM', stopChildren);
  }
}

async function benchSpeed(names: string[], starts: Map<string, string>, work: string): Promise<void> {
  const baseRoot = extractBaseline(mkdirSync(join(work, 'baseline'), { recursive: true }) ?? join(work, 'baseline'));
  for (const name of names) {
    // bench/configs pins the configs the speed figures were measured on; then the ready ones.
    const config = [join(ROOT, 'bench/configs', `${name}.yaml`), join(ROOT, 'configs', `${name}.yaml`)].find((path) => existsSync(path))!;
    console.log(`\n${name}.yaml`);
    let startDir = starts.get(name);
    if (!startDir) {
      const prep = join(work, `${name}-start`);
      const start = await runChild(ROOT, config, ['trainer.total_training_steps=1', ...QUIET], prep);
      if (start.error) throw new Error(`bench iteration: the starting iteration of ${name} failed: ${start.error}`);
      startDir = join(prep, 'iter-1');
    }
    const from = [`model.path=${startDir}`, 'warm_start.mode=none', `trainer.total_training_steps=${ITERATIONS}`, ...QUIET];
    const variants: Variant[] = [
      ...(baseRoot ? [{ name: `baseline ${BASELINE.slice(0, 7)}`, root: baseRoot, overrides: from }] : []),
      { name: 'prefix reuse off', root: ROOT, overrides: [...from, 'trainer.workers=1', 'actor_rollout_ref.rollout.prefix_reuse=false'] },
      { name: 'new', root: ROOT, overrides: [...from, 'trainer.workers=1'] },
      { name: 'new, workers auto', root: ROOT, overrides: [...from, 'trainer.workers=auto'] },
    ];
    const outcomes = new Map<string, Outcome>();
    for (const variant of variants) {
      const outcome = await runChild(variant.root, config, variant.overrides, join(work, `${name}-${outcomes.size}`));
      outcomes.set(variant.name, outcome);
      report(variant.name, outcome);
    }
    const next = outcomes.get('new')!;
    const parallel = outcomes.get('new, workers auto')!;
    if (baseRoot) {
      const base = outcomes.get(`baseline ${BASELINE.slice(0, 7)}`)!;
      console.log(`  ${name}: new vs baseline ${ratio(base, next)}`);
      console.log(`  ${name}: new with workers auto vs baseline ${ratio(base, parallel)}`);
    }
    console.log(`  ${name}: new vs prefix reuse off ${ratio(outcomes.get('prefix reuse off')!, next)}`);
    console.log(`  ${name}: workers auto vs workers 1 ${ratio(next, parallel)}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runAlone('iteration', USAGE, benchIteration);
