// The records the repositories take and return. Times are epoch milliseconds; JSON columns
// come back parsed; booleans are booleans. A metric value of null records a NaN.

export const RUN_STATUSES = ['queued', 'running', 'stopping', 'stopped', 'completed', 'failed', 'interrupted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const SPLITS = ['train', 'val'] as const;
export type Split = (typeof SPLITS)[number];

export interface RunRecord {
  id: number;
  name: string;
  status: RunStatus;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  config: unknown;
  configHash: string;
  seed: number;
  envTags: string[];
  algorithm: string;
  backend: string | null;
  device: string | null;
  parentRunId: number | null;
  parentCheckpointId: number | null;
  parentIteration: number | null;
  error: string | null;
  tags: string[];
  notes: string;
  /** The process that owns (trains) the run, for recovery and refusals; null once it ended. */
  trainerPid: number | null;
  trainerHost: string | null;
  /** When that process took the run, and its last heartbeat (main/services/run-owner.ts). */
  trainerStartedAt: number | null;
  trainerHeartbeatAt: number | null;
  /** Every parameter of the policy as its trainer built it; null before the trainer started. */
  parameterCount: number | null;
}

/** A run as the run list shows it. */
export interface RunSummary extends RunRecord {
  /** The highest iteration any metric was logged at; null before the first one. */
  iterations: number | null;
  /** The best value of any `val/<tag>/success` metric; null when none was logged. */
  bestValSuccess: number | null;
}

export interface NewRun {
  name: string;
  config: unknown;
  seed: number;
  envTags: string[];
  algorithm: string;
  status?: RunStatus;
  /** Defaults to `hashConfig(config)`. */
  configHash?: string;
  createdAt?: number;
  startedAt?: number | null;
  backend?: string | null;
  device?: string | null;
  parentRunId?: number | null;
  parentCheckpointId?: number | null;
  parentIteration?: number | null;
  tags?: string[];
  notes?: string;
}

export type RunPatch = Partial<
  Pick<RunRecord, 'name' | 'status' | 'startedAt' | 'finishedAt' | 'backend' | 'device' | 'error' | 'tags' | 'notes' | 'config' | 'parameterCount'>
>;

export interface MetricPoint {
  runId: number;
  name: string;
  iteration: number;
  value: number | null;
  /** Epoch milliseconds (fractions allowed). */
  wallTime: number;
}

export interface SeriesPoint {
  iteration: number;
  value: number | null;
  wallTime: number;
}

export interface LatestMetric extends SeriesPoint {
  name: string;
}

export interface NewTurn {
  /** Defaults to the turn's position in its episode. */
  turnIndex?: number;
  observation: string;
  /** Structured environment state for replay (JSON). */
  state?: unknown;
  response: string;
  actions: string[];
  numValidActions: number;
  reward: number;
  done: boolean;
  info?: Record<string, unknown>;
  numTokens: number;
  logprobSum?: number | null;
  advantageMean?: number | null;
}

export interface TurnRecord {
  id: number;
  episodeId: number;
  turnIndex: number;
  observation: string;
  state: unknown;
  response: string;
  actions: string[];
  numValidActions: number;
  reward: number;
  done: boolean;
  info: Record<string, unknown>;
  numTokens: number;
  logprobSum: number | null;
  advantageMean: number | null;
}

export interface NewEpisode {
  runId: number;
  iteration: number;
  split: Split;
  envTag: string;
  groupId: number;
  envIndex: number;
  seed: number;
  totalReward: number;
  success: boolean;
  /** Defaults to `turns.length`. */
  numTurns?: number;
  numActions: number;
  truncated: boolean;
  /** True when the rollout filter dropped the episode's group from the update. */
  filteredOut?: boolean;
  turns: NewTurn[];
}

/** An evaluation of a checkpoint with the episodes it played (split `val`, its checkpoint's iteration). */
export interface NewEvaluation {
  runId: number;
  checkpointId: number | null;
  iteration: number;
  createdAt?: number;
  /** The config the episodes were played with: the run's, with `overrides` applied. */
  config: unknown;
  overrides?: string[];
  startSeed?: number | null;
  backend?: string | null;
  device?: string | null;
  metrics: Record<string, number | null>;
  episodes: Array<Omit<NewEpisode, 'runId' | 'iteration' | 'split'>>;
}

export interface EvaluationRecord {
  id: number;
  runId: number;
  /** Null once the checkpoint was deleted or pruned; `iteration` still names it. */
  checkpointId: number | null;
  iteration: number;
  createdAt: number;
  config: unknown;
  overrides: string[];
  numEpisodes: number;
  startSeed: number | null;
  backend: string | null;
  device: string | null;
  metrics: Record<string, number | null>;
}

export interface EpisodeRecord {
  id: number;
  runId: number;
  iteration: number;
  split: Split;
  envTag: string;
  groupId: number;
  envIndex: number;
  seed: number;
  totalReward: number;
  success: boolean;
  numTurns: number;
  numActions: number;
  truncated: boolean;
  filteredOut: boolean;
}

export interface EpisodeFilter {
  split?: Split;
  success?: boolean;
  groupId?: number;
  envTag?: string;
  filteredOut?: boolean;
}

export interface NewCheckpoint {
  runId: number;
  iteration: number;
  /** Where the checkpoint lies; relative to the data folder keeps the folder movable. */
  path: string;
  sizeBytes: number;
  sha256: string;
  createdAt?: number;
  metrics?: Record<string, number | null>;
}

export interface CheckpointRecord {
  id: number;
  runId: number;
  iteration: number;
  path: string;
  sizeBytes: number;
  sha256: string;
  createdAt: number;
  metrics: Record<string, number | null>;
}

/** One row of an export: database column names, JSON parsed, booleans as booleans. */
export type ExportRow = Record<string, unknown>;
