import type { SingleBar } from 'cli-progress';
import { createRequire } from 'node:module';

const requireModule = createRequire(import.meta.url);

export interface ProgressReporter {
  update(iteration: number, total: number, metrics: Record<string, number>): void;
  /** A line of its own (backend choice, warnings), printed without breaking the bar. */
  note(line: string): void;
  finish(): void;
}

/** Mean of every `<split>/<tag>/<name>` metric of a split: one figure across env tags. */
function splitMean(metrics: Record<string, number>, split: string, name: string): number | null {
  const values = Object.entries(metrics)
    .filter(([key]) => key.startsWith(`${split}/`) && key.endsWith(`/${name}`) && key.split('/').length === 3)
    .map(([, v]) => v);
  return values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

function fields(metrics: Record<string, number>) {
  const success = splitMean(metrics, 'train', 'success');
  const reward = splitMean(metrics, 'train', 'reward');
  const val = splitMean(metrics, 'val', 'success');
  return {
    success: success === null ? '-' : success.toFixed(2),
    reward: reward === null ? '-' : reward.toFixed(3),
    val: val === null ? '-' : val.toFixed(2),
    tps: Math.round(metrics['perf/rollout_tokens_per_second'] ?? 0),
  };
}

/** One iteration as a plain line, as logs and the seed-group view print it. */
export function progressLine(iteration: number, total: number, metrics: Record<string, number>): string {
  const f = fields(metrics);
  return `iteration ${iteration}/${total} success ${f.success} reward ${f.reward} val ${f.val} tok/s ${f.tps}`;
}

/**
 * A progress bar (cli-progress) on a terminal; one plain line per iteration otherwise, so logs
 * and tests read cleanly.
 */
export function createProgressReporter(stream: NodeJS.WriteStream): ProgressReporter {
  if (!stream.isTTY) {
    return {
      update(iteration, total, metrics) {
        stream.write(`${progressLine(iteration, total, metrics)}\n`);
      },
      note: (line) => stream.write(`${line}\n`),
      finish() {},
    };
  }
  const { SingleBar: Bar, Presets } = requireModule('cli-progress') as typeof import('cli-progress');
  let bar: SingleBar | null = null;
  return {
    update(iteration, total, metrics) {
      if (!bar) {
        bar = new Bar(
          {
            stream,
            format: 'iteration {value}/{total} |{bar}| success {success} reward {reward} val {val} | {tps} tok/s | eta {eta_formatted}',
            hideCursor: true,
          },
          Presets.shades_classic,
        );
        bar.start(total, iteration, fields(metrics));
      } else {
        bar.update(iteration, fields(metrics));
      }
    },
    note(line) {
      if (bar) bar.stop();
      stream.write(`${line}\n`);
      bar = null;
    },
    finish() {
      bar?.stop();
      bar = null;
    },
  };
}
