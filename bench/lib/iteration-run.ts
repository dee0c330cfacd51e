/**
 * One child process of `npm run bench -- iteration`: trains iterations of a config with the
 * trainer-core found under --root (this checkout, or an extracted copy of the baseline commit),
 * and prints one JSON line per iteration (rollout and update seconds, tensor count, RSS, peak
 * RSS). A child per measurement keeps the variants' memory apart and lets the baseline code run
 * beside the new code in the same bench run.
 *
 * npx tsx bench/lib/iteration-run.ts --root DIR --config FILE --checkpoints DIR [--resume DIR] [--phases] [key=value ...]
 *
 * `--phases` (this checkout's trainer-core only) also prints, per iteration, a table of its phases
 * (trainer-core/model/phase-profile.ts): rollout and within it prefill, decoding and the prefix
 * store, reference and value scoring, advantage, updates; each with wall seconds (the GPU drained
 * at each phase's end, so a phase's seconds are its own), GPU dispatches, tfjs kernels, readbacks,
 * pipelines compiled and its own counts (rows, tokens); then tensors, GPU memory and peak RSS.
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import type { EpisodeReport, RunStartInfo } from '../../trainer-core/train/sink';
import type { PhaseRecord } from '../../trainer-core/model/phase-profile';

interface Args {
  root: string;
  config: string;
  checkpoints: string;
  resume?: string;
  phases: boolean;
  overrides: string[];
}

function parseArgs(argv: string[]): Args {
  const out: Partial<Args> & { overrides: string[] } = { overrides: [], phases: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--root' || flag === '--config' || flag === '--checkpoints' || flag === '--resume') {
      const key = flag.slice(2) as 'root' | 'config' | 'checkpoints' | 'resume';
      out[key] = argv[++i];
    } else if (flag === '--phases') {
      out.phases = true;
    } else {
      out.overrides.push(flag);
    }
  }
  if (!out.root || !out.config || !out.checkpoints) throw new Error('iteration-run needs --root, --config and --checkpoints');
  return out as Args;
}

const args = parseArgs(process.argv.slice(2));
const root = resolve(args.root);
const load = (path: string) => import(pathToFileURL(join(root, path)).href);
const { loadRunConfig } = (await load('trainer-core/config/index.ts')) as typeof import('../../trainer-core/config');
const { train } = (await load('trainer-core/train/trainer.ts')) as typeof import('../../trainer-core/train/trainer');
const { MemorySink } = (await load('trainer-core/train/sink.ts')) as typeof import('../../trainer-core/train/sink');
// The same module instance as the trainer's (same file URL), so the trainer's phases land here.
const profile = args.phases ? ((await load('trainer-core/model/phase-profile.ts')) as typeof import('../../trainer-core/model/phase-profile')).startPhaseProfile({ sync: true }) : null;
let iterationStart = performance.now();
const GIB = 2 ** 30;
const seenPipelines = new Set<string>();

class TimingSink extends MemorySink {
  /** CPU seconds (user + system) are robust to a busy machine where wall seconds are not. */
  private cpuMark = process.cpuUsage();

  override runStarted(info: RunStartInfo): void {
    super.runStarted(info);
    this.cpuMark = process.cpuUsage();
    iterationStart = performance.now();
  }

  override iteration(iteration: number, metrics: Record<string, number>, episodes: EpisodeReport[]): void {
    super.iteration(iteration, metrics, episodes);
    const cpu = process.cpuUsage(this.cpuMark);
    this.cpuMark = process.cpuUsage();
    const line = {
      cpu: (cpu.user + cpu.system) / 1e6,
      iteration,
      rollout: metrics['timing_s/rollout'],
      update: metrics['timing_s/update'],
      tensors: tf.memory().numTensors,
      rssMb: process.memoryUsage().rss / 2 ** 20,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      success: metrics['train/success'] ?? metrics[Object.keys(metrics).find((k) => k.endsWith('/success') && k.startsWith('train/')) ?? ''],
    };
    process.stdout.write(`ITERATION ${JSON.stringify(line)}\n`);
    if (profile) process.stdout.write(phaseTable(iteration, (performance.now() - iterationStart) / 1000, metrics, profile.take()));
    iterationStart = performance.now();
  }
}

const config = loadRunConfig(args.config, args.overrides);
// The trainer's own lines (backend, model, warm start) with the seconds since start, on stderr.
const log = (line: string) => process.stderr.write(`[${(performance.now() / 1000).toFixed(1)} s] ${line}\n`);
await train({ config, sink: new TimingSink(), checkpointDir: args.checkpoints, resumeFrom: args.resume, log });

/** The readable per-iteration report of --phases. */
function phaseTable(iteration: number, wall: number, metrics: Record<string, number>, records: PhaseRecord[]): string {
  const memory = tf.memory() as tf.MemoryInfo & { numBytesInGPU?: number; numBytesAllocatedInGPU?: number };
  const gpu = memory.numBytesInGPU === undefined ? 'no GPU' : `GPU ${(memory.numBytesInGPU / GIB).toFixed(2)} GiB in use, ${((memory.numBytesAllocatedInGPU ?? 0) / GIB).toFixed(2)} GiB allocated`;
  const lines = [
    `PHASES iteration ${iteration}: ${wall.toFixed(1)} s wall (rollout ${metrics['timing_s/rollout'].toFixed(1)} s, update ${metrics['timing_s/update'].toFixed(1)} s); ` +
      `${tf.memory().numTensors} tensors, ${(memory.numBytes / GIB).toFixed(2)} GiB of tensors, ${gpu}; RSS ${(process.memoryUsage().rss / GIB).toFixed(2)} GiB (peak ${(process.resourceUsage().maxRSS / 2 ** 20).toFixed(2)})`,
  ];
  const number = (n: number) => Math.round(n).toLocaleString('en-US');
  for (const r of records) {
    const own = Object.entries(r.counts).map(([key, n]) => `${key} ${number(n)}`).join(', ');
    const calls = r.calls === 1 ? '' : ` (${r.calls} calls)`;
    lines.push(
      `  ${r.name.padEnd(26)} ${r.seconds.toFixed(2).padStart(8)} s${calls}: ${number(r.gpu.dispatches)} dispatches, ${number(r.gpu.kernels)} kernels, ` +
        `${number(r.gpu.readbacks)} readbacks, ${number(r.gpu.pipelinesCompiled)} pipelines compiled, ${(r.endBytes / GIB).toFixed(2)} GiB held at its end${own ? `; ${own}` : ''}`,
    );
  }
  const compiled = newPipelines();
  if (iteration > 1 && compiled.length > 0) lines.push(`  pipelines compiled this iteration (${compiled.length}): ${compiled.slice(0, 12).join(' ')}${compiled.length > 12 ? ' ...' : ''}`);
  return `${lines.join('\n')}\n`;
}

/** WebGPU shader keys compiled since the last call (tfjs keys a pipeline by its program and, for some programs, shapes). */
function newPipelines(): string[] {
  const cache = (tf.backend() as unknown as { pipelineCache?: Record<string, unknown> }).pipelineCache;
  if (!cache) return [];
  const fresh = Object.keys(cache).filter((key) => !seenPipelines.has(key));
  for (const key of fresh) seenPipelines.add(key);
  return fresh.map((key) => (key.length > 60 ? `${key.slice(0, 60)}...` : key));
}
