/**
 * One child process of `npm run bench -- iteration`: trains iterations of a config with the
 * trainer-core found under --root (this checkout, or an extracted copy of the baseline commit),
 * and prints one JSON line per iteration (rollout and update seconds, tensor count, RSS, peak
 * RSS). A child per measurement keeps the variants' memory apart and lets the baseline code run
 * beside the new code in the same bench run.
 *
 * npx tsx bench/lib/iteration-run.ts --root DIR --config FILE --checkpoints DIR [--resume DIR] [key=value ...]
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import type { EpisodeReport, RunStartInfo } from '../../trainer-core/train/sink';

interface Args {
  root: string;
  config: string;
  checkpoints: string;
  resume?: string;
  overrides: string[];
}

function parseArgs(argv: string[]): Args {
  const out: Partial<Args> & { overrides: string[] } = { overrides: [] };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--root' || flag === '--config' || flag === '--checkpoints' || flag === '--resume') {
      const key = flag.slice(2) as 'root' | 'config' | 'checkpoints' | 'resume';
      out[key] = argv[++i];
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

class TimingSink extends MemorySink {
  /** CPU seconds (user + system) are robust to a busy machine where wall seconds are not. */
  private cpuMark = process.cpuUsage();

  override runStarted(info: RunStartInfo): void {
    super.runStarted(info);
    this.cpuMark = process.cpuUsage();
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
  }
}

const config = loadRunConfig(args.config, args.overrides);
// The trainer's own lines (backend, model, warm start) with the seconds since start, on stderr.
const log = (line: string) => process.stderr.write(`[${(performance.now() / 1000).toFixed(1)} s] ${line}\n`);
await train({ config, sink: new TimingSink(), checkpointDir: args.checkpoints, resumeFrom: args.resume, log });
