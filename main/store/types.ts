// The records the repositories take and return. Times are epoch milliseconds; JSON columns
// come back parsed; booleans are booleans. A metric value of null records a NaN. The records the
// workbench shows are the contract's shapes (preload/contract.ts), named here as the store's.
import type {
  CheckpointDto,
  EpisodeDto,
  EpisodeFilterDto,
  LatestMetricDto,
  RunDto,
  RunStatusDto,
  SeriesPointDto,
  SplitDto,
  StoredEvaluationDto,
  StoredRunDto,
  TurnDto,
} from '../../preload/contract';
import type { EpisodeReport, StoredRunConfig, TurnReport } from '../../trainer-core';

export { RUN_STATUSES, SPLITS } from '../../preload/contract';
export type RunStatus = RunStatusDto;
export type Split = SplitDto;

export type RunRecord = StoredRunDto;
/** A run as the run list shows it. */
export type RunSummary = RunDto;

/** A run to create: the record's own fields, the rest defaulted (configHash to `hashConfig(config)`). */
export type NewRun = Pick<RunRecord, 'name' | 'config' | 'seed' | 'envTags' | 'algorithm'> &
  Partial<
    Pick<RunRecord, 'status' | 'configHash' | 'createdAt' | 'startedAt' | 'backend' | 'device' | 'parentRunId' | 'parentCheckpointId' | 'parentIteration' | 'tags' | 'notes'>
  >;

export type RunPatch = Partial<
  Pick<RunRecord, 'name' | 'status' | 'startedAt' | 'finishedAt' | 'backend' | 'device' | 'error' | 'tags' | 'notes' | 'config' | 'parameterCount' | 'warmStartProgress'>
>;

/** A metric value to store: a series point of one run's metric (wallTime in epoch ms, fractions allowed). */
export type MetricPoint = { runId: number; name: string } & SeriesPointDto;

export type SeriesPoint = SeriesPointDto;
export type LatestMetric = LatestMetricDto;

/** A turn to store: as the trainer reports it; the fields a caller may leave out default. */
export type NewTurn = Omit<TurnReport, 'turnIndex' | 'state' | 'info' | 'logprobSum' | 'advantageMean'> & {
  /** Defaults to the turn's position in its episode. */
  turnIndex?: number;
  /** Structured environment state for replay (JSON). */
  state?: unknown;
  info?: Record<string, unknown>;
  logprobSum?: number | null;
  advantageMean?: number | null;
};

export type TurnRecord = TurnDto;

/** An episode to store: as the trainer reports it, with its run; numTurns defaults to its turns' count. */
export type NewEpisode = { runId: number } & Omit<EpisodeReport, 'turns' | 'numTurns' | 'filteredOut'> & {
  numTurns?: number;
  /** True when the rollout filter dropped the episode's group from the update. */
  filteredOut?: boolean;
  turns: NewTurn[];
};

/** An evaluation of a checkpoint with the episodes it played (split `val`, its checkpoint's iteration). */
export interface NewEvaluation {
  runId: number;
  checkpointId: number | null;
  iteration: number;
  createdAt?: number;
  /** The config the episodes were played with: the run's, with `overrides` applied. */
  config: StoredRunConfig;
  overrides?: string[];
  startSeed?: number | null;
  backend?: string | null;
  device?: string | null;
  metrics: Record<string, number | null>;
  episodes: Array<Omit<NewEpisode, 'runId' | 'iteration' | 'split'>>;
}

/** A stored evaluation: the contract's, with the config its episodes were played with. */
export type EvaluationRecord = StoredEvaluationDto & { config: StoredRunConfig };

export type EpisodeRecord = EpisodeDto;
export type EpisodeFilter = EpisodeFilterDto;

/** A checkpoint to index; its path relative to the data folder keeps the folder movable. */
export type NewCheckpoint = Omit<CheckpointRecord, 'id' | 'createdAt' | 'metrics' | 'warmStartStep'> & Partial<Pick<CheckpointRecord, 'createdAt' | 'metrics' | 'warmStartStep'>>;

export type CheckpointRecord = CheckpointDto;

/** One row of an export: database column names, JSON parsed, booleans as booleans. */
export type ExportRow = Record<string, unknown>;

/** Statuses of a run that has not ended: a live owner may be training it, or one that died left it so. */
export const UNFINISHED_STATUSES: ReadonlySet<string> = new Set(['queued', 'running', 'stopping']);
