import { relative } from 'node:path';
import type { CheckpointReport, EpisodeReport, ExpertIterationRound, RunEndStatus, RunStartInfo, TrainingSink, WarmUpPhase } from '../../trainer-core';
import { retryWhileBusy } from '../store/busy';
import type { Store } from '../store/db';
import type { MetricPoint, NewEpisode } from '../store/types';

/** A reported episode as the store takes it: the same shape, with its run. */
export function newEpisode(runId: number, e: EpisodeReport): NewEpisode {
  return { runId, ...e };
}

/**
 * Writes a training run into the store as it happens. Each iteration's metrics, episodes and
 * turns go in one transaction, so a process killed mid-run leaves whole iterations only. A
 * database busy past its timeout (another process deleting a large run) does not fail the
 * run: every write waits and tries again, with backoff, for up to `maxBusyWaitMs`.
 */
export const WARM_START_LOSS_METRIC = 'warm_start/loss';
export const EXPERT_ITERATION_PREFIX = 'expert_iteration/';

export class StoreSink implements TrainingSink {
  private warmStartedAt: number | undefined;

  constructor(
    private readonly store: Store,
    private readonly runId: number,
    private readonly log?: (line: string) => void,
    private readonly maxBusyWaitMs = 10 * 60_000,
    /** Told the metric points each write stored, once they are stored (the TensorBoard log mirrors them). */
    private readonly onStored?: (points: MetricPoint[]) => void,
  ) {}

  private write<T>(what: string, work: () => T): Promise<T> {
    return retryWhileBusy(work, {
      maxWaitMs: this.maxBusyWaitMs,
      onRetry: (attempt) => {
        if (attempt === 1) this.log?.(`the database is busy (another process is writing); retrying the ${what}`);
      },
    });
  }

  async backendSelected({ backend, device }: Pick<RunStartInfo, 'backend' | 'device'>): Promise<void> {
    await this.write('backend', () => this.store.runs.update(this.runId, { backend, device }));
  }

  async runStarted(info: RunStartInfo): Promise<void> {
    await this.write('run start', () => this.store.runs.update(this.runId, {
      status: 'running',
      // A resumed run keeps the time it first started; only a new run (or fork) starts now.
      startedAt: this.store.runs.get(this.runId)?.startedAt ?? Date.now(),
      finishedAt: null,
      error: null,
      backend: info.backend,
      device: info.device,
      parameterCount: info.parameterCount,
    }));
  }

  /**
   * The warm start's loss curve, as `warm_start/loss` at iterations 1-n .. 0: the steps before
   * RL's first iteration, the last one at iteration 0 (where the warm-started policy is validated).
   */
  async warmStartLoss(losses: number[]): Promise<void> {
    const wallTime = Date.now();
    const points = losses.map((value, i) => ({
      runId: this.runId,
      name: WARM_START_LOSS_METRIC,
      iteration: i + 1 - losses.length,
      value: Number.isFinite(value) ? value : null,
      wallTime,
    }));
    await this.write('warm start loss', () => this.store.metrics.insert(points));
    this.onStored?.(points);
  }

  /**
   * How far the warm start or expert iteration is, on the run's row (their curves come at their
   * end, above and below); each phase begins at step 0, which starts its clock.
   */
  async warmStartProgress(step: number, steps: number, loss: number | null, phase: WarmUpPhase): Promise<void> {
    const now = Date.now();
    if (step === 0 || this.warmStartedAt === undefined) this.warmStartedAt = now;
    const progress = { phase, step, steps, loss: loss !== null && Number.isFinite(loss) ? loss : null, startedAt: this.warmStartedAt, updatedAt: now };
    await this.write('warm start progress', () => this.store.runs.update(this.runId, { warmStartProgress: progress }));
  }

  /**
   * Expert iteration's rounds as `expert_iteration/*` metrics at iterations 1-rounds .. 0, like the
   * warm start's loss (written at the end, so a run's last iteration is never below 0): the share
   * of new start states solved, the pool, the fit's loss.
   */
  async expertIteration(rounds: ExpertIterationRound[]): Promise<void> {
    const wallTime = Date.now();
    const points = rounds.flatMap((round) => {
      const values: Record<string, number | null> = {
        [`${EXPERT_ITERATION_PREFIX}success`]: round.solved / Math.max(1, round.played),
        [`${EXPERT_ITERATION_PREFIX}pool_episodes`]: round.pool,
        [`${EXPERT_ITERATION_PREFIX}loss`]: round.loss !== null && Number.isFinite(round.loss) ? round.loss : null,
      };
      return Object.entries(values).map(([name, value]) => ({ runId: this.runId, name, iteration: round.round - round.rounds, value, wallTime }));
    });
    await this.write('expert iteration', () => this.store.metrics.insert(points));
    this.onStored?.(points);
  }

  async iteration(iteration: number, metrics: Record<string, number>, episodes: EpisodeReport[]): Promise<void> {
    const points = await this.write(`iteration ${iteration}`, () => this.insertIteration(iteration, metrics, episodes));
    this.onStored?.(points);
  }

  private insertIteration(iteration: number, metrics: Record<string, number>, episodes: EpisodeReport[]): MetricPoint[] {
    const wallTime = Date.now();
    const points = Object.entries(metrics).map(([name, value]) => ({
      runId: this.runId,
      name,
      iteration,
      value: Number.isFinite(value) ? value : null,
      wallTime,
    }));
    this.store.transaction(() => {
      this.store.metrics.insert(points);
      this.store.episodes.insert(episodes.map((e) => newEpisode(this.runId, e)));
    });
    return points;
  }

  async checkpoint(report: CheckpointReport): Promise<void> {
    await this.write(`checkpoint of iteration ${report.iteration}`, () => this.store.checkpoints.insert([
      {
        runId: this.runId,
        iteration: report.iteration,
        // Relative to the data folder, so the folder can move.
        path: relative(this.store.dataDir, report.path),
        sizeBytes: report.sizeBytes,
        sha256: report.sha256,
        metrics: report.metrics,
        warmStartStep: report.warmStartStep ?? null,
      },
    ]));
  }

  async checkpointsRemoved(paths: string[]): Promise<void> {
    const gone = new Set(paths.map((p) => relative(this.store.dataDir, p)));
    await this.write('checkpoint pruning', () => {
      for (const checkpoint of this.store.checkpoints.listByRun(this.runId)) {
        if (gone.has(checkpoint.path)) this.store.checkpoints.remove(checkpoint.id);
      }
    });
  }

  async runEnded(status: RunEndStatus, error?: string): Promise<void> {
    await this.write('run end', () => this.store.runs.update(this.runId, { status, finishedAt: Date.now(), error: error ?? null }));
  }
}
