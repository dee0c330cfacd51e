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
 * Run alone: npx tsx bench/iteration.ts [--start name=DIR] [config names, default frozenlake-ragen-prompt sokoban-bilevel-gae]
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
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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

function runChild(root: string, config: string, overrides: string[], checkpoints: string): Outcome {
  const result = spawnSync(process.execPath, ['--import', 'tsx', RUNNER, '--root', root, '--config', config, '--checkpoints', checkpoints, ...overrides], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  const lines = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('ITERATION '))
    .map((line) => JSON.parse(line.slice('ITERATION '.length)) as IterationLine);
  const stderr = result.stderr ?? '';
  // The error's own line, not the runtime's version line Node prints after an uncaught error.
  const errorLine = stderr.split('\n').find((line) => /^\w*Error\b/.test(line)) ?? stderr.trim().split('\n').pop();
  const error = result.status === 0 ? null : /memory access out of bounds|out of memory/i.test(stderr) ? 'wasm out of memory' : (errorLine ?? `exit ${result.status}`);
  return { lines, error };
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
  const { PRESETS, writeRandomHfModel } = await import('../scripts/hf-random-model');
  const model = await writeRandomHfModel(join(work, 'tiny-qwen2'), PRESETS['tiny-qwen2'], { seed: 1 });
  for (const name of names.length > 0 ? names : ['frozenlake']) {
    const config = join(ROOT, 'configs', `${name}.yaml`);
    if (!existsSync(config)) throw new Error(`bench iteration --pretrained: no configs/${name}.yaml`);
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
    const one = runChild(ROOT, config, [...overrides, 'trainer.workers=1'], join(work, `${name}-pretrained-1`));
    report('pretrained, workers 1', one);
    const auto = runChild(ROOT, config, [...overrides, 'trainer.workers=auto'], join(work, `${name}-pretrained-auto`));
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
  const { PRESETS, writeRandomHfModel } = await import('../scripts/hf-random-model');
  if (!PRESETS[o.preset]) throw new Error(`bench iteration --ragen: unknown preset "${o.preset}"; use one of ${Object.keys(PRESETS).join(', ')}`);
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
  // Streamed, not collected: a time limit that stops the run still leaves the finished iterations' lines.
  // The child loads TypeScript as this process does (the GPU machine's pack holds those files).
  const loader = process.execArgv.length > 0 ? process.execArgv : ['--import', 'tsx'];
  const result = spawnSync(process.execPath, [...loader, RUNNER, '--phases', '--root', ROOT, '--config', config, '--checkpoints', join(work, 'checkpoints'), ...overrides], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error(`bench iteration --ragen: the run exited with ${result.status ?? result.signal}`);
}

/** `npm run bench -- iteration --pretrained`: the words after the benchmark's name. */
function argsAfterName(): string[] {
  const at = process.argv.indexOf('iteration');
  return at < 0 ? [] : process.argv.slice(at + 1);
}

export default async function benchIteration(args: string[] = argsAfterName()): Promise<void> {
  const starts = new Map<string, string>();
  const names: string[] = [];
  let pretrained = false;
  let ragen: RagenOptions | null = null;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--pretrained') {
      pretrained = true;
    } else if (args[i] === '--ragen') {
      ragen = { preset: args[++i] ?? '', models: null, backend: 'webgpu', small: false, overrides: [] };
    } else if (ragen && args[i] === '--models') {
      ragen.models = args[++i];
    } else if (ragen && args[i] === '--backend') {
      ragen.backend = args[++i];
    } else if (ragen && args[i] === '--small') {
      ragen.small = true;
    } else if (ragen && args[i].includes('=')) {
      ragen.overrides.push(args[i]);
    } else if (args[i] === '--start') {
      const [name, dir] = (args[++i] ?? '').split('=');
      if (!name || !dir) throw new Error('bench iteration: --start takes name=DIR (a checkpoint folder), e.g. --start frozenlake-ragen-prompt=/tmp/run/iter-1');
      starts.set(name, dir);
    } else {
      names.push(args[i]);
    }
  }
  const work = mkdtempSync(join(tmpdir(), 'turnlab-bench-iteration-'));
  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`;
  if (ragen) {
    console.log(`${new Date().toISOString()}; ${machine}`);
    try {
      await benchRagenBatch(ragen, work);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    return;
  }
  if (pretrained) {
    console.log(`${machine}; ${ITERATIONS} iterations per variant`);
    try {
      await benchPretrainedWorkers(names, work);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    return;
  }
  if (names.length === 0) names.push('frozenlake-ragen-prompt', 'sokoban-bilevel-gae');
  console.log(`${machine}; ${ITERATIONS} iterations per variant after one warm-started iteration`);
  try {
    const baseRoot = extractBaseline(mkdirSync(join(work, 'baseline'), { recursive: true }) ?? join(work, 'baseline'));
    for (const name of names) {
      // bench/configs pins the configs the speed figures were measured on; then the ready ones.
      const config = [join(ROOT, 'bench/configs', `${name}.yaml`), join(ROOT, 'configs', `${name}.yaml`)].find((path) => existsSync(path));
      if (!config) throw new Error(`bench iteration: no bench/configs/${name}.yaml or configs/${name}.yaml`);
      console.log(`\n${name}.yaml`);
      let startDir = starts.get(name);
      if (!startDir) {
        const prep = join(work, `${name}-start`);
        const start = runChild(ROOT, config, ['trainer.total_training_steps=1', ...QUIET], prep);
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
        const outcome = runChild(variant.root, config, variant.overrides, join(work, `${name}-${outcomes.size}`));
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
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchIteration(process.argv.slice(2));
