import { hostname } from 'node:os';
import { relative } from 'node:path';
import type { CheckpointReport, EpisodeReport, RunEndStatus, RunStartInfo, TrainingSink } from '../../trainer-core/train/sink';
import type { Store } from '../store/db';

/**
 * Writes a training run into the store as it happens. Each iteration's metrics, episodes and
 * turns go in one transaction, so a process killed mid-run leaves whole iterations only.
 */
export class StoreSink implements TrainingSink {
  constructor(
    private readonly store: Store,
    private readonly runId: number,
  ) {}

  runStarted(info: RunStartInfo): void {
    this.store.runs.update(this.runId, {
      status: 'running',
      startedAt: Date.now(),
      finishedAt: null,
      error: null,
      backend: info.backend,
      device: info.device,
    });
    // Lets a later app start tell this live run from one whose process died (main/services/recovery.ts).
    this.store.runs.setTrainerProcess(this.runId, process.pid, hostname());
  }

  iteration(iteration: number, metrics: Record<string, number>, episodes: EpisodeReport[]): void {
    const wallTime = Date.now();
    this.store.transaction(() => {
      this.store.metrics.insert(
        Object.entries(metrics).map(([name, value]) => ({
          runId: this.runId,
          name,
          iteration,
          value: Number.isFinite(value) ? value : null,
          wallTime,
        })),
      );
      this.store.episodes.insert(
        episodes.map((e) => ({
          runId: this.runId,
          iteration: e.iteration,
          split: e.split,
          envTag: e.envTag,
          groupId: e.groupId,
          envIndex: e.envIndex,
          seed: e.seed,
          totalReward: e.totalReward,
          success: e.success,
          numTurns: e.numTurns,
          numActions: e.numActions,
          truncated: e.truncated,
          filteredOut: e.filteredOut,
          turns: e.turns.map((t) => ({
            turnIndex: t.index,
            observation: t.observation,
            state: t.state,
            response: t.response,
            actions: t.actions,
            numValidActions: t.validActions,
            reward: t.reward,
            done: t.done,
            info: t.info,
            numTokens: t.tokenCount,
            logprobSum: t.logprobSum,
            advantageMean: t.advantageMean,
          })),
        })),
      );
    });
  }

  checkpoint(report: CheckpointReport): void {
    this.store.checkpoints.insert([
      {
        runId: this.runId,
        iteration: report.iteration,
        // Relative to the data folder, so the folder can move.
        path: relative(this.store.dataDir, report.path),
        sizeBytes: report.sizeBytes,
        sha256: report.sha256,
        metrics: report.metrics,
      },
    ]);
  }

  checkpointsRemoved(paths: string[]): void {
    const gone = new Set(paths.map((p) => relative(this.store.dataDir, p)));
    for (const checkpoint of this.store.checkpoints.listByRun(this.runId)) {
      if (gone.has(checkpoint.path)) this.store.checkpoints.remove(checkpoint.id);
    }
  }

  runEnded(status: RunEndStatus, error?: string): void {
    this.store.runs.update(this.runId, { status, finishedAt: Date.now(), error: error ?? null });
  }
}
