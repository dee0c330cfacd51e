// Keeping an evaluation of a checkpoint: its figures, the config it played with and every
// episode with its turns, so the Checkpoints view lists it after a reload and Replay opens it.
import type { EvaluationResult } from '../../trainer-core';
import type { Store } from '../store/db';
import type { CheckpointRecord, EvaluationRecord } from '../store/types';
import { newEpisode } from '../trainer-host/store-sink';

export interface EvaluationSettings {
  overrides: string[];
  /** The first start-state seed asked for; null when the run config's validation seeds were used. */
  startSeed: number | null;
}

/** Stores what `evaluateCheckpoint` returned for `checkpoint`; one transaction. */
export function recordEvaluation(
  store: Store,
  checkpoint: CheckpointRecord,
  result: EvaluationResult,
  settings: EvaluationSettings,
): EvaluationRecord {
  return store.evaluations.insert({
    runId: checkpoint.runId,
    checkpointId: checkpoint.id,
    iteration: result.iteration,
    config: result.config,
    overrides: settings.overrides,
    startSeed: settings.startSeed,
    backend: result.backend,
    device: result.device,
    metrics: Object.fromEntries(Object.entries(result.metrics).map(([name, value]) => [name, Number.isFinite(value) ? value : null])),
    episodes: result.episodeReports.map((report) => {
      const { runId: _run, iteration: _iteration, split: _split, ...episode } = newEpisode(checkpoint.runId, report);
      return episode;
    }),
  });
}
