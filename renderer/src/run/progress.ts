// What the Run view says about a run in progress: "iteration 19 / 300", time left from the
// pace of the last iterations, tokens per second, and `warming up` while the supervised warm
// start (or expert iteration) runs (the trainer marks a run `running` only once its first iteration begins).
import type { MetricSeriesDto, RunDto, WarmStartProgressDto } from '../../../preload/contract';
import { at, totalIterationsOf } from '../stores/run-settings';

/** How many of the latest iterations set the pace for "time left". */
const PACE_WINDOW = 10;

/**
 * The status to show: `warming up` for a new queued run whose config has a warm start, whether
 * the app or the CLI started it, and `resuming` for a queued run that has trained before (it
 * starts from its checkpoint and does not warm up again).
 */
export function displayStatus(run: Pick<RunDto, 'status' | 'config' | 'iterations'>): string {
  if (run.status !== 'queued') return run.status;
  // A run with iterations behind it that waits for its trainer is being resumed from a checkpoint.
  if ((run.iterations ?? 0) > 0) return 'resuming';
  const mode = at(run.config, 'warm_start.mode');
  const steps = at(run.config, 'warm_start.steps');
  const rounds = at(run.config, 'expert_iteration.rounds');
  const demonstrations = typeof mode === 'string' && mode !== 'none' && typeof steps === 'number' && steps > 0;
  return demonstrations || (typeof rounds === 'number' && rounds > 0) ? 'warming up' : 'queued';
}

/** The warm start's progress while the run is warming up (and its trainer has written one), else null. */
export function warmingUp(run: Pick<RunDto, 'status' | 'config' | 'iterations' | 'warmStartProgress'>): WarmStartProgressDto | null {
  return displayStatus(run) === 'warming up' ? run.warmStartProgress : null;
}

/** Seconds to the warm start's last step at its pace so far; null before its first report of a step. */
function warmStartSecondsLeft(p: WarmStartProgressDto): number | null {
  if (p.step <= 0) return null;
  return Math.max(0, ((p.steps - p.step) * (p.updatedAt - p.startedAt)) / 1000 / p.step);
}

export interface RunProgress {
  /** Iterations done, or the warm start's steps while it runs. */
  iteration: number;
  total: number | null;
  /** "iteration 19 / 300", "warm start step 1200 / 2500, loss 0.2100" or "expert iteration round 3 / 12". */
  text: string;
  /** Whether these are the warm start's steps (or expert iteration's rounds) rather than RL's iterations. */
  warmingUp: boolean;
  /** Seconds to the last iteration at the recent pace; null when unknown. */
  secondsLeft: number | null;
  rolloutTokensPerSecond: number | null;
  trainTokensPerSecond: number | null;
}

/** When each iteration was logged: the latest wall time of any metric at it. */
function iterationTimes(series: MetricSeriesDto): Array<[number, number]> {
  const times = new Map<number, number>();
  for (const points of Object.values(series)) {
    for (const p of points) if (p.iteration > 0) times.set(p.iteration, Math.max(times.get(p.iteration) ?? 0, p.wallTime));
  }
  return [...times.entries()].sort((a, b) => a[0] - b[0]);
}

function latest(series: MetricSeriesDto, name: string): number | null {
  const points = series[name] ?? [];
  for (let i = points.length - 1; i >= 0; i--) if (points[i].value !== null) return points[i].value;
  return null;
}

/**
 * The recent pace from consecutive iterations' times. A step more than three times the median
 * is not the pace: the pause of a run stopped and resumed, or a first iteration that compiled
 * kernels, which over a window of ten read the time left several times too high. A validation
 * every few iterations stays in (it recurs in the iterations left).
 */
export function secondsPerIteration(times: ReadonlyArray<readonly [number, number]>): number | null {
  const steps: number[] = [];
  for (let i = 1; i < times.length; i++) {
    const iterations = times[i][0] - times[i - 1][0];
    if (iterations > 0) steps.push((times[i][1] - times[i - 1][1]) / 1000 / iterations);
  }
  if (steps.length === 0) return null;
  const sorted = [...steps].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  const kept = median > 0 ? steps.filter((step) => step <= 3 * median) : steps;
  return kept.reduce((sum, step) => sum + step, 0) / kept.length;
}

/** "warm start step 1200 / 2500, loss 0.2100" or "expert iteration round 3 / 12". */
function warmStartText(warm: WarmStartProgressDto): string {
  return `${warm.phase === 'expert iteration' ? 'expert iteration round' : 'warm start step'} ${warm.step} / ${warm.steps}${warm.loss === null ? '' : `, loss ${warm.loss.toFixed(4)}`}`;
}

export function runProgress(run: Pick<RunDto, 'status' | 'iterations' | 'config' | 'warmStartProgress'>, series: MetricSeriesDto): RunProgress {
  const warm = warmingUp(run);
  if (warm) {
    return {
      iteration: warm.step,
      total: warm.steps,
      text: warmStartText(warm),
      warmingUp: true,
      secondsLeft: warmStartSecondsLeft(warm),
      rolloutTokensPerSecond: null,
      trainTokensPerSecond: null,
    };
  }
  // A run that ended in its warm start: where the warm start got to, not "iteration 0".
  if (run.iterations === null && run.warmStartProgress !== null && ['stopped', 'failed', 'interrupted'].includes(run.status)) {
    const ended = run.warmStartProgress;
    return {
      iteration: ended.step,
      total: ended.steps,
      text: `${warmStartText(ended)} (${run.status} there)`,
      warmingUp: false,
      secondsLeft: null,
      rolloutTokensPerSecond: null,
      trainTokensPerSecond: null,
    };
  }
  const iteration = run.iterations ?? 0;
  // Continuing a run stores its new total; a run continued before that was so still holds its
  // first total and has no known end: say the iteration alone rather than "4 / 2".
  const planned = totalIterationsOf(run.config);
  const total = planned !== null && iteration <= planned ? planned : null;
  const perIteration = total === null ? null : secondsPerIteration(iterationTimes(series).slice(-PACE_WINDOW - 1));
  const secondsLeft = perIteration === null || total === null ? null : Math.max(0, (total - iteration) * perIteration);
  return {
    iteration,
    total,
    text: total === null ? `iteration ${iteration}` : `iteration ${iteration} / ${total}`,
    warmingUp: false,
    secondsLeft,
    rolloutTokensPerSecond: latest(series, 'perf/rollout_tokens_per_second'),
    trainTokensPerSecond: latest(series, 'perf/train_tokens_per_second'),
  };
}

/** "45 s", "9 min 22 s", "2 h 05 min". */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** "1,234" tokens per second. */
export function formatRate(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}
