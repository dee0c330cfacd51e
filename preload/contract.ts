/**
 * The one typed contract between main and renderer. Main implements it (main/api.ts), the
 * preload script exposes it over IPC, and the renderer calls it through IPC or HTTP alike.
 * Every type here is plain JSON-serialisable data (times are epoch milliseconds), so the same
 * values travel over Electron's structured clone and over HTTP as JSON.
 */
export interface AppInfo {
  version: string;
  dataDir: string;
}

export type RunStatusDto = 'queued' | 'running' | 'stopping' | 'stopped' | 'completed' | 'failed' | 'interrupted';
export type SplitDto = 'train' | 'val';

export interface RunDto {
  id: number;
  name: string;
  status: RunStatusDto;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** The resolved training config, as stored. */
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
  /** The highest iteration any metric was logged at; null before the first one. */
  iterations: number | null;
  /** The best value of any `val/<tag>/success` metric; null when none was logged. */
  bestValSuccess: number | null;
}

export interface SeriesPointDto {
  iteration: number;
  /** null records a NaN. */
  value: number | null;
  wallTime: number;
}

export interface LatestMetricDto extends SeriesPointDto {
  name: string;
}

/** Metric name -> its points, oldest iteration first. */
export type MetricSeriesDto = Record<string, SeriesPointDto[]>;

export interface CheckpointDto {
  id: number;
  runId: number;
  iteration: number;
  path: string;
  sizeBytes: number;
  sha256: string;
  createdAt: number;
  metrics: Record<string, number | null>;
}

export interface EpisodeFilterDto {
  split?: SplitDto;
  success?: boolean;
  groupId?: number;
  envTag?: string;
  filteredOut?: boolean;
}

export interface EpisodeDto {
  id: number;
  runId: number;
  iteration: number;
  split: SplitDto;
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

export interface TurnDto {
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

/** A ready run config the app can start (from the configs/ folder). */
export interface ConfigFileDto {
  name: string;
  path: string;
  /** The file's text, for display and editing. */
  text: string;
}

export interface StartRunRequest {
  /** Path of a YAML config (see listConfigs). */
  configPath: string;
  /** `key=value` overrides, as `--set` on the command line. */
  overrides?: string[];
  name?: string;
}

export interface ResumeRunRequest {
  /** A run id (its latest checkpoint) or a checkpoint id. */
  runId?: number;
  checkpointId?: number;
  /** Start a child run instead of continuing the same one. */
  fork?: boolean;
  overrides?: string[];
  name?: string;
}

/** A trainer process the app started and still watches. */
export interface ActiveTrainingDto {
  runId: number;
  pid: number;
  startedAt: number;
  stopRequested: boolean;
}

export interface TurnLabApi {
  appInfo(): Promise<AppInfo>;
  /** All runs, oldest first, with iteration count and best validation success. */
  listRuns(): Promise<RunDto[]>;
  /** One run; fails with a not-found error for an unknown id. */
  getRun(runId: number): Promise<RunDto>;
  metricNames(runId: number): Promise<string[]>;
  metricSeries(runId: number, names: string[]): Promise<MetricSeriesDto>;
  latestMetrics(runId: number): Promise<LatestMetricDto[]>;
  listCheckpoints(runId: number): Promise<CheckpointDto[]>;
  listEpisodes(runId: number, iteration: number, filter?: EpisodeFilterDto): Promise<EpisodeDto[]>;
  episodeTurns(episodeId: number): Promise<TurnDto[]>;
  /** The iterations at which the run logged episodes, optionally of one split only. */
  episodeIterations(runId: number, split?: SplitDto): Promise<number[]>;
  listConfigs(): Promise<ConfigFileDto[]>;
  /** Starts a trainer process; resolves once its run row exists. */
  startRun(request: StartRunRequest): Promise<{ runId: number }>;
  /** Asks the run's trainer to finish its iteration, save a checkpoint and stop. */
  stopRun(runId: number): Promise<void>;
  /** Continues (or forks) a run from a checkpoint in a new trainer process. */
  resumeRun(request: ResumeRunRequest): Promise<{ runId: number }>;
  activeTrainings(): Promise<ActiveTrainingDto[]>;
}

export type ApiMethod = keyof TurnLabApi;
export const API_METHODS: readonly ApiMethod[] = [
  'appInfo',
  'listRuns',
  'getRun',
  'metricNames',
  'metricSeries',
  'latestMetrics',
  'listCheckpoints',
  'listEpisodes',
  'episodeTurns',
  'episodeIterations',
  'listConfigs',
  'startRun',
  'stopRun',
  'resumeRun',
  'activeTrainings',
] as const;
export const IPC_CHANNEL_PREFIX = 'turnlab:';

/** Error codes the API reports, over IPC and HTTP alike. */
export type ApiErrorCode = 'UNKNOWN_METHOD' | 'INVALID_ARGUMENTS' | 'NOT_FOUND' | 'INTERNAL';
