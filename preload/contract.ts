/**
 * The one typed contract between main and renderer. Main implements it (main/api/), the
 * preload script exposes it over IPC, and the renderer calls it through IPC or HTTP alike.
 * Every type here is plain JSON-serialisable data (times are epoch milliseconds), so the same
 * values travel over Electron's structured clone and over HTTP as JSON.
 */

/** Names both sides share, from the trainer modules that own them (the forms' choices, metric names). */
export { BUILT_IN_ESTIMATOR_NAMES as ESTIMATOR_NAMES, BACKENDS as BACKEND_NAMES, COLLAPSE_METRIC, WELL_FORMED_METRIC } from '../trainer-core/shared-names';
import type { EpisodeReport, StoredRunConfig, TurnReport } from '../trainer-core/shared-names';

export interface AppInfo {
  version: string;
  dataDir: string;
}

// The stored shapes are defined once, here (runs, checkpoints, metric points) or in the trainer's
// reports (episodes, turns); main/store/types.ts names them as the store's records.

/** A run's log holds one line starting so at each trainer start: the code that trained it (main/services/code-version.ts). */
export const CODE_LOG_PREFIX = 'code: ';

export const RUN_STATUSES = ['queued', 'running', 'stopping', 'stopped', 'completed', 'failed', 'interrupted'] as const;
export type RunStatusDto = (typeof RUN_STATUSES)[number];
export const SPLITS = ['train', 'val'] as const satisfies ReadonlyArray<EpisodeReport['split']>;
export type SplitDto = (typeof SPLITS)[number];

/** A run as the store keeps it. */
export interface StoredRunDto {
  id: number;
  name: string;
  status: RunStatusDto;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** The resolved training config, as stored (by this or an earlier TurnLab: keys may be missing). */
  config: StoredRunConfig;
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
  /** The process that owns (trains) the run, and its host; null once it ended. */
  trainerPid: number | null;
  trainerHost: string | null;
  /** When that process took the run, and its last heartbeat. */
  trainerStartedAt: number | null;
  trainerHeartbeatAt: number | null;
  /** Every parameter of the policy as its trainer built it; null before the trainer started. */
  parameterCount: number | null;
  /** How far the warm start or expert iteration has got; null for a run without either (or stored before schema 8). */
  warmStartProgress: WarmStartProgressDto | null;
}

/**
 * How far a run's training before RL is, as its trainer last wrote it: the supervised warm start
 * (every hundredth of its steps), then expert iteration (after each round).
 */
export interface WarmStartProgressDto {
  phase: 'warm start' | 'expert iteration';
  /** Steps (expert iteration: rounds) done, 0 when the phase has just begun. */
  step: number;
  steps: number;
  /** The loss of the latest step or round's fit; null at 0 and for a round with nothing to fit. */
  loss: number | null;
  /** When the warm start began and when this was written (epoch ms). */
  startedAt: number;
  updatedAt: number;
}

/** A run as the run list shows it. */
/** A metric name and how many of the runs asked about log it. */
export interface MetricCoverageDto {
  name: string;
  runs: number;
}

export interface RunDto extends StoredRunDto {
  /** The highest iteration any metric was logged at; null before the first one. */
  iterations: number | null;
  /** The best value of any `val/<tag>/success` metric; null when none was logged. */
  bestValSuccess: number | null;
}

/** The Runs table's sort columns. */
export const RUN_SORT_KEYS = ['id', 'name', 'status', 'env', 'algorithm', 'seed', 'iterations', 'progress', 'bestValSuccess', 'createdAt'] as const;
export type RunSortKeyDto = (typeof RUN_SORT_KEYS)[number] | `config:${string}` | `metric:${string}`;

/**
 * A config key the Runs table can show as a column (W&B's config columns), dotted
 * (`algorithm.adv_estimator`); sorted by as `config:<key>`. A column `metric:<name>` shows the
 * metric's last logged value (W&B's summary), sorted by as itself.
 */
export const RUN_COLUMN_KEY = /^[A-Za-z_][\w-]*(\.[\w-]+)*$/;
export const METRIC_COLUMN_PREFIX = 'metric:';

/** Whether `column` is a column the Runs table can show: a dotted config key, or `metric:<name>`. */
export function isRunColumn(column: string): boolean {
  if (column.startsWith(METRIC_COLUMN_PREFIX)) return column.length > METRIC_COLUMN_PREFIX.length && column.length <= 500;
  return RUN_COLUMN_KEY.test(column);
}

/** The sort key of a column: `config:<key>`, or the metric column itself. */
export function columnSortKey(column: string): RunSortKeyDto {
  return column.startsWith(METRIC_COLUMN_PREFIX) ? (column as `metric:${string}`) : `config:${column}`;
}

/** The column a sort key sorts by (the inverse of columnSortKey); null for the built-in sorts and anything else. */
export function sortColumn(sort: string): string | null {
  const column = sort.startsWith('config:') ? sort.slice('config:'.length) : sort.startsWith(METRIC_COLUMN_PREFIX) ? sort : null;
  return column !== null && isRunColumn(column) ? column : null;
}

/** Whether `sort` is a sort the Runs table takes: a built-in column, or a column's (sortColumn). */
export function isRunSortKey(sort: string): sort is RunSortKeyDto {
  return (RUN_SORT_KEYS as readonly string[]).includes(sort) || sortColumn(sort) !== null;
}

/** The most columns (config keys and metrics) one table shows. */
export const RUN_COLUMNS_MAX = 8;

export const RUN_CONDITION_OPS = ['=', '!=', '<', '<=', '>', '>='] as const;

/**
 * The run's own fields a condition may name besides config keys and metrics (MLflow's
 * attributes), as the Runs table shows them; `env` and `tag` hold when one of the run's env tags
 * or tags is the value. No config has a top-level key of these names (`algorithm` is a section).
 */
export const RUN_CONDITION_FIELDS = ['id', 'name', 'status', 'algorithm', 'seed', 'env', 'tag', 'iterations', 'progress', 'best_val_success', 'created_at'] as const;
/** The fields of RUN_CONDITION_FIELDS that hold a list: they compare with = and != only. */
export const RUN_CONDITION_LIST_FIELDS: readonly string[] = ['env', 'tag'];
export type RunConditionOp = (typeof RUN_CONDITION_OPS)[number];

/**
 * A condition on a column (preload/run-conditions.ts reads and writes them as text): one of the
 * run's fields (RUN_CONDITION_FIELDS), a config key's value or a metric's last value compared
 * with `value`. A run without the key or metric fails every condition on it, `!=` too.
 */
export interface RunConditionDto {
  column: string;
  op: RunConditionOp;
  value: string | number | boolean;
}

/** A condition's column that no run has, and the nearest one some run has (null when none is near). */
export interface UnknownRunColumnDto {
  column: string;
  closest: string | null;
}

/** One page of the Runs table: filtered, sorted and cut on the server. */
/** The most rows one page of the Runs table returns. */
export const RUN_PAGE_MAX_LIMIT = 1000;
/** Most runs Compare draws at once (their series are read together). */
export const COMPARE_RUNS_MAX = 200;

export interface RunPageQueryDto {
  /** Case-insensitive substring of the id, name, notes, algorithm, tags or env tags. */
  search?: string;
  status?: string;
  /** An env tag the run trains on. */
  env?: string;
  algorithm?: string;
  tag?: string;
  /** Conditions on config keys and metrics, all of which must hold (MLflow's filter string). */
  where?: RunConditionDto[];
  sort?: RunSortKeyDto;
  descending?: boolean;
  /** Columns to return with each row, as `columnValues` in this order: config keys or `metric:<name>` (isRunColumn, at most RUN_COLUMNS_MAX). */
  columns?: string[];
  offset?: number;
  /** Rows to return (default 200, at most RUN_PAGE_MAX_LIMIT). */
  limit?: number;
  /** Also return the filter choices and the seed groups' runs (the first page of a visit). */
  withChoices?: boolean;
}

/**
 * A row of the Runs table: what it shows, not the whole run. `config` holds only the keys the
 * table reads (trainer.total_training_steps, warm_start.mode and warm_start.steps).
 */
export type RunRowDto = Pick<
  RunDto,
  'id' | 'name' | 'status' | 'createdAt' | 'seed' | 'envTags' | 'algorithm' | 'parentRunId' | 'parentIteration' | 'tags' | 'notes' | 'iterations' | 'bestValSuccess' | 'config' | 'warmStartProgress'
> & {
  /** The query's `columns`: each config key's value, each metric's last logged value (null where there is none). */
  columnValues?: unknown[];
  /** Whether its latest iteration is marked collapsed (COLLAPSE_METRIC, the Run view's badge). */
  collapsed: boolean;
};

export interface RunFilterChoicesDto {
  status: string[];
  env: string[];
  algorithm: string[];
  tag: string[];
}

export interface RunPageDto {
  rows: RunRowDto[];
  /** Runs that match the filters, on every page. */
  total: number;
  /** With `withChoices`: each filter's values over every run, and every run of a seed group. */
  choices: RunFilterChoicesDto | null;
  seedGroupRuns: RunRowDto[] | null;
  /** When no run matches `where`: those of its columns that no run has at all (a misspelt key); absent when some run matches. */
  unknownColumns?: UnknownRunColumnDto[];
}

/** verl's LoRA settings of a pretrained run. */
export interface LoraDto {
  rank: number;
  alpha: number;
  targetModules: string[];
}

/** The policy a run trains, for the Run view's model line and the Checkpoints view's export. */
export type RunModelDto =
  | {
      kind: 'pretrained';
      /** `actor_rollout_ref.model.path` as configured, and its folder's name. */
      path: string;
      name: string;
      /** `architectures[0]` of the folder's config.json; null when it cannot be read now. */
      architecture: string | null;
      /** The base model's parameters (config.json), as the trainer's log line says them; the stored count, adapters included, when config.json cannot be read. */
      parameterCount: number | null;
      /** The LoRA adapters' parameters; null for full fine-tuning, or when the base's count is unknown. */
      trainableCount: number | null;
      /** null: full fine-tuning. */
      lora: LoraDto | null;
    }
  /** layers and dModel are null when the stored config does not say them (an imported run's config missing `model`). */
  | { kind: 'scratch'; layers: number | null; dModel: number | null; parameterCount: number | null };

export interface ExportModelRequest {
  checkpointId: number;
  /** A new or empty folder on the machine main runs on; absent, the desktop app asks for one. */
  out?: string;
  /** Fold the LoRA adapters into the weights. */
  merged: boolean;
  dtype: 'F32' | 'BF16';
}

/** What `turnlab export-model --json` wrote. */
export interface ModelExportDto {
  checkpointId: number;
  runId: number;
  iteration: number;
  out: string;
  merged: boolean;
  dtype: 'F32' | 'BF16';
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
  /**
   * Set for a warm-start checkpoint (`warm_start.save_freq`, at iteration 0): the warm start's steps
   * done when it was saved. It is no finished policy: it only resumes its own run, which keeps its
   * latest one until its first finished checkpoint. Null for every other checkpoint.
   */
  warmStartStep: number | null;
}

export interface EpisodeFilterDto {
  split?: SplitDto;
  success?: boolean;
  groupId?: number;
  envTag?: string;
  filteredOut?: boolean;
}

/** A stored episode: what the trainer reported, without its turns, with its ids. */
export type EpisodeDto = { id: number; runId: number } & Omit<EpisodeReport, 'turns'>;

/**
 * A stored turn: what the trainer reported, with its ids. Its state is the JSON stored (runs of
 * older versions and custom environments may hold any), and a turn imported without a logprob
 * sum holds null.
 */
export type TurnDto = { id: number; episodeId: number } & Omit<TurnReport, 'state' | 'logprobSum'> & { state: unknown; logprobSum: number | null };

/** A ready run config the app can start (from the configs/ folder). */
/** One line a run's trainer logged: the backend it chose, a warning (`turnlab train` prints them too). */
export interface RunLogLineDto {
  id: number;
  /** When it was logged (epoch ms). */
  at: number;
  line: string;
}

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
  /** Starts a seed group instead: one run per seed, named `<name>-s<seed>`, tagged `seeds:<name>`. */
  seeds?: number[];
  /** A group's trainings at once; half the cores by default. */
  concurrency?: number;
}

/**
 * A run of a seed group not started: waiting in the queue of a live process for a free slot, or
 * `cancelled` by the group's stop before it started (kept, so the group still lists every seed asked for).
 */
export interface QueuedSeedRunDto {
  group: string;
  seed: number;
  name: string;
  cancelled: boolean;
}

/** What stopping a seed group did. */
export interface StopSeedGroupResultDto {
  group: string;
  /** Seeds that were waiting for a slot and now never start. */
  cancelledSeeds: number[];
  /** Runs of the group asked to stop after their iteration; `pid` is null for this app's own trainers. */
  stoppedRuns: Array<{ runId: number; name: string; pid: number | null; alreadyStopping: boolean }>;
}

export interface ResumeRunRequest {
  /** A run id (its latest checkpoint) or a checkpoint id. */
  runId?: number;
  checkpointId?: number;
  /** Start a child run instead of continuing the same one. */
  fork?: boolean;
  /**
   * Continuing the run from an earlier checkpoint deletes what it recorded after it: refused
   * unless this says the user agreed (the Checkpoints view asks first), as `--discard-later`.
   */
  discardLater?: boolean;
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

/** How a run read its replies and actions for one env tag: what the replay view needs to mark them. */
export interface ReplaySettingsDto {
  envTag: string;
  envType: string;
  /** Valid action names; null when actions are free text (every action passes through). */
  actionNames: string[] | null;
  /** Text the prompt ended with and the reply continues (e.g. `<answer>`); '' for none. */
  responsePrefix: string;
  enableThink: boolean;
  actionSep: string;
  /** False when only the first valid action of a turn is applied. */
  multiAction: boolean;
  maxActionsPerTraj: number;
}

/** One stored turn checked against the environment re-run from the episode's seed. */
export interface TurnCheckDto {
  turnIndex: number;
  /** The actions the environment executed (valid ones, within the turn's budget). */
  executedActions: string[];
  observationMatches: boolean;
  stateMatches: boolean;
  rewardMatches: boolean;
  doneMatches: boolean;
  /** The stored count of valid actions equals what the env's action names give. */
  validActionsMatch: boolean;
  storedReward: number;
  replayedReward: number;
  storedDone: boolean;
  replayedDone: boolean;
  /** What differs, in words; null when the turn matches. */
  mismatch: string | null;
}

export interface ResimulationDto {
  episodeId: number;
  /** Every turn and the episode totals (turns, actions, success, reward) match. */
  reproduced: boolean;
  turns: TurnCheckDto[];
  /** Differences in the episode totals, in words. */
  episodeMismatches: string[];
  /** One line for the view: reproduced, or where it first diverged. */
  summary: string;
  /**
   * The environment after the episode's last turn, re-run from its seed and stored actions (the
   * store keeps each turn's state before it): what the replay shows after the last action.
   */
  finalObservation: string;
  finalState: unknown;
}

/** One run's points of one metric, for the Compare view. */
export interface RunSeriesDto {
  runId: number;
  points: SeriesPointDto[];
}

/** Several runs' series of one metric: one entry of `compareSeriesBatch`'s answer. */
export interface MetricRunsSeriesDto {
  name: string;
  series: RunSeriesDto[];
  /** Whether any run's series was thinned to `maxPoints` (min and max of each iteration bucket kept). */
  downsampled: boolean;
}

/** Changes to a run's name, tags or notes; absent fields stay as they are. */
export interface RunEditDto {
  name?: string;
  tags?: string[];
  notes?: string;
}

/** Tags to add to and take from the runs named, in one change. */
export interface TagRunsRequest {
  runIds: number[];
  add: string[];
  remove: string[];
}

/** How many runs a tagRuns named, and how many it changed (the others had the tags added and lacked those removed). */
export interface TagRunsResultDto {
  runs: number;
  changed: number;
}

/** How many runs one call of tagRuns or deleteRuns may name (the Runs view's selection). */
export const BULK_RUNS_MAX = 10_000;

/** A config to check before starting it: a config file, or edited text; with overrides. */
export interface RunConfigCheckRequest {
  configPath?: string;
  yaml?: string;
  overrides?: string[];
}

/** A sweep's grid to check against a config before starting it, as startSweep reads it. */
export interface SweepCheckRequest extends RunConfigCheckRequest {
  /** `key=v1,v2` axes, one a line as the New run form's grid field holds them. */
  grid: string[];
}

/** What a sweep of a grid would train: the settings accepted and the combinations left out. */
export interface SweepCheckDto {
  /** The grid's combinations some run would train (each a seed group). */
  settings: number;
  /** Each combination no config accepts, with why, as a started sweep's note line says it. */
  leftOut: string[];
  /** Why the sweep would be refused as a whole (a value no combination accepts, a misspelt key); null when it would start. */
  problem: string | null;
}

/** One thing the trainer would refuse, under the dotted config key it is about ('' for the whole). */
export interface ConfigProblemDto {
  key: string;
  message: string;
  /** 1-based line of the key in edited text, when it is there. */
  line?: number;
}

/** A compute backend: whether it can start here, with its device, or why not. */
export interface BackendAvailabilityDto {
  name: string;
  available: boolean;
  device?: string;
  reason?: string;
}

/** A run started from edited YAML text instead of a config file. */
export interface StartRunFromTextRequest {
  yaml: string;
  overrides?: string[];
  name?: string;
  seeds?: number[];
  concurrency?: number;
}

export interface EvaluateCheckpointRequest {
  checkpointId: number;
  /** Episodes to play; the run config's validation set when absent. */
  episodes?: number;
}

/** `turnlab eval --json` of one checkpoint. */
export interface EvaluationDto {
  checkpoint: number;
  runId: number;
  /** The stored evaluation (listEvaluations, listEvaluationEpisodes). */
  evaluationId: number;
  iteration: number;
  episodes: number;
  metrics: Record<string, number>;
}
/** A stored evaluation of a checkpoint, as the Checkpoints view lists it. */
export interface StoredEvaluationDto {
  id: number;
  runId: number;
  /** Null once the checkpoint was deleted or pruned; `iteration` still names it. */
  checkpointId: number | null;
  iteration: number;
  createdAt: number;
  /** The `--set` overrides it was played with (e.g. greedy decoding). */
  overrides: string[];
  numEpisodes: number;
  /** The first start-state seed asked for; null for the run config's validation seeds. */
  startSeed: number | null;
  backend: string | null;
  device: string | null;
  /** null records a NaN. */
  metrics: Record<string, number | null>;
}

export type ExportKindDto = 'runs' | 'metrics' | 'episodes' | 'turns' | 'logs';
export type ExportFormatDto = 'csv' | 'jsonl';
export interface ExportRequestDto {
  what: ExportKindDto;
  format: ExportFormatDto;
  runIds: number[];
  /** The episodes or turns this evaluation of the one run played, instead of the run's own. */
  evaluationId?: number;
}

/** Where the desktop app saved something the user chose a place for. */
export interface SavedDto {
  path: string;
  /** Rows written, for an export. */
  rows?: number;
}

/**
 * Events from main to the renderer: over IPC in the app (`window.turnlabEvents`), as
 * server-sent events from `GET /api/events` in the browser.
 */
export type TurnLabEvent =
  | { type: 'run-status'; runId: number; status: RunStatusDto }
  | { type: 'run-iteration'; runId: number; iteration: number }
  /** Runs were added, removed, renamed, tagged or annotated. */
  | { type: 'runs-changed' };

export interface TurnLabEvents {
  /** Calls `listener` for each event until the returned function is called. */
  subscribe(listener: (event: TurnLabEvent) => void): () => void;
}
export const EVENT_CHANNEL = 'turnlab-event';

export interface TurnLabApi {
  appInfo(): Promise<AppInfo>;
  /** All runs, oldest first, with iteration count and best validation success. */
  listRuns(): Promise<RunDto[]>;
  /** One page of the Runs table, filtered and sorted on the server (10,000 runs stay quick). */
  runPage(query: RunPageQueryDto): Promise<RunPageDto>;
  /** The runs asked for, in that order, whole (configs included); unknown ids are left out. */
  getRuns(runIds: number[]): Promise<RunDto[]>;
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
  /** The lines the run's trainers logged, after line `afterId` (0: from the first), a page at a time. */
  runLog(runId: number, afterId?: number): Promise<RunLogLineDto[]>;
  listConfigs(): Promise<ConfigFileDto[]>;
  /** Starts a trainer process; resolves once its run row exists. */
  startRun(request: StartRunRequest): Promise<{ runId: number }>;
  /** Asks the run's trainer (this app's, or any process training it on this machine) to finish its iteration, save a checkpoint and stop. */
  stopRun(runId: number): Promise<void>;
  /** Continues (or forks) a run from a checkpoint in a new trainer process. */
  resumeRun(request: ResumeRunRequest): Promise<{ runId: number }>;
  activeTrainings(): Promise<ActiveTrainingDto[]>;
  /** Seed-group runs not started yet (waiting for a slot), in queue order. */
  queuedSeedRuns(): Promise<QueuedSeedRunDto[]>;
  /** What each sweep was asked to train (its grid and seeds), newest first. */
  sweepPlans(): Promise<SweepPlanDto[]>;
  /** Stops a seed group, whichever process started it: its queued seeds never start, its training runs stop after their iteration. */
  stopSeedGroup(group: string): Promise<StopSeedGroupResultDto>;
  /** Renames, tags or annotates a run. */
  updateRun(runId: number, edit: RunEditDto): Promise<RunDto>;
  /** Deletes a run, its data and its checkpoint folder; refused while it trains. */
  deleteRun(runId: number): Promise<void>;
  /** Adds and removes tags on many runs (the Runs view's selection); all or none are changed. */
  tagRuns(request: TagRunsRequest): Promise<TagRunsResultDto>;
  /** Deletes many runs; every one is checked first, so one that trains leaves them all. Returns the ids deleted. */
  deleteRuns(runIds: number[]): Promise<number[]>;
  /** Starts a run from YAML text (an edited config). */
  startRunFromText(request: StartRunFromTextRequest): Promise<{ runId: number }>;
  /** What the trainer would refuse in a config with overrides, key by key; empty when it would start. */
  checkRunConfig(request: RunConfigCheckRequest): Promise<ConfigProblemDto[]>;
  /** What a sweep of a grid over a config would train, and what it would leave out or refuse, before it starts. */
  checkSweep(request: SweepCheckRequest): Promise<SweepCheckDto>;
  /** Each compute backend: whether it can start on this machine, and why not. */
  listBackends(): Promise<BackendAvailabilityDto[]>;
  /** Plays a checkpoint's policy in a child process, stores the evaluation and returns its metrics. */
  evaluateCheckpoint(request: EvaluateCheckpointRequest): Promise<EvaluationDto>;
  /** A run's stored evaluations, by iteration, newest first within one. */
  listEvaluations(runId: number): Promise<StoredEvaluationDto[]>;
  /** One stored evaluation; fails with a not-found error for an unknown id. */
  getEvaluation(evaluationId: number): Promise<StoredEvaluationDto>;
  /** The episodes an evaluation played (their turns through episodeTurns). */
  listEvaluationEpisodes(evaluationId: number, filter?: EpisodeFilterDto): Promise<EpisodeDto[]>;
  /** Deletes a checkpoint's folder and row; refused while its run trains. */
  deleteCheckpoint(checkpointId: number): Promise<void>;
  /** Desktop app only: asks where to save and writes the export there; null when cancelled. */
  saveExport(request: ExportRequestDto): Promise<SavedDto | null>;
  /** Desktop app only: asks for a folder and copies the checkpoint's model folder into it; null when cancelled. */
  saveCheckpointFolder(checkpointId: number): Promise<SavedDto | null>;
  /** The run's policy: a pretrained model folder and its LoRA settings, or TurnLab's own transformer. */
  runModel(runId: number): Promise<RunModelDto>;
  /**
   * Writes a pretrained run's checkpoint as a Hugging Face folder (`turnlab export-model`, in a
   * child process); null when the desktop folder dialog was cancelled.
   */
  exportCheckpointModel(request: ExportModelRequest): Promise<ModelExportDto | null>;
  /** One metric of several runs in one call, in the order of `runIds`; a run without it gets no points. */
  compareSeries(runIds: number[], name: string): Promise<RunSeriesDto[]>;
  /**
   * Many metrics of many runs in one call, in the order asked. A series longer than
   * `maxPoints` (default 2,000) comes thinned on the server, keeping each iteration bucket's
   * minimum and maximum and the last point, so spikes and final values survive.
   */
  compareSeriesBatch(runIds: number[], names: string[], maxPoints?: number): Promise<MetricRunsSeriesDto[]>;
  /**
   * Every metric name any of the runs logged, sorted by name, each with how many of the runs log
   * it: Compare's panel choices in one call, its first panel the one most runs have.
   */
  compareMetricNames(runIds: number[]): Promise<MetricCoverageDto[]>;
  /** Action names and reply format of one env tag of a run, from its stored config. */
  replaySettings(runId: number, envTag: string): Promise<ReplaySettingsDto>;
  /** Replays an episode's stored actions through its env from the seed and compares every turn. */
  resimulateEpisode(episodeId: number): Promise<ResimulationDto>;
  /** Cluster jobs of sweeps, after polling the scheduler and importing the runs of ended tasks. */
  listClusterJobs(): Promise<ClusterJobsDto>;
  /** Stops a cluster task (`scancel`); its trainer saves a checkpoint and ends. */
  cancelClusterJob(jobId: number): Promise<ClusterJobDto>;
  /**
   * Continues a cancelled, timed-out or failed task as a new job from its bundle's last checkpoint
   * (`turnlab resume-job`); `time` replaces the task's #SBATCH --time.
   */
  resumeClusterJob(jobId: number, options?: { time?: string }): Promise<ClusterJobDto>;
  /** Starts a sweep (`turnlab sweep`): a seed group per setting of the grid, here or on Slurm. */
  startSweep(request: StartSweepRequest): Promise<SweepStartedDto>;
}

export interface StartSweepRequest {
  /** A config file; or, with `yaml`, none: the edited text is written to the data folder's configs/ first. */
  configPath?: string;
  yaml?: string;
  overrides?: string[];
  name?: string;
  /** `key=v1,v2` axes; the grid is every combination. */
  grid: string[];
  seeds: number[];
  executor: 'local' | 'slurm';
  /** local: trainings at once. */
  concurrency?: number;
  /** slurm: where and how the tasks run (as `turnlab sweep`'s flags). */
  slurm?: { remoteDir: string; localDir?: string; ssh?: string; partition?: string; time?: string; cpusPerTask?: number; gres?: string; turnlab?: string; /** Extra #SBATCH lines (`--mem=32G`). */ sbatch?: string[] };
}

/** What a sweep was asked to train, stored as it starts: its grid and seeds. */
export interface SweepPlanDto {
  name: string;
  axes: Array<{ key: string; values: string[] }>;
  /** Combinations of the axes no run's config accepts, left out as it started: each as its values in the order of the axes. */
  skipped: string[][];
  seeds: number[];
  executor: 'local' | 'slurm';
  createdAt: number;
}

export interface SweepStartedDto {
  /** The seed groups, one per setting. */
  groups: string[];
  runs: number;
  /** The sweep's name: its runs carry the tag `sweep:<name>`. */
  sweep: string;
  /** slurm: the array job. */
  arrayJobId: string | null;
  /** Combinations of the grid left out because no run's config accepts them, each `key=value ...: why`. */
  skipped: string[];
}

/** A run of a sweep sent to a cluster (`turnlab sweep --executor slurm`), as last polled. */
/** The states in which a cluster task has ended (the scheduler's word, or what its bundle says). */
export const ENDED_JOB_STATES: ReadonlySet<ClusterJobDto['state']> = new Set(['completed', 'failed', 'cancelled', 'timeout']);

export interface ClusterJobDto {
  id: number;
  sweep: string;
  seedGroup: string;
  name: string;
  seed: number;
  /** `<array job>_<task>`, or a resumed task's own job id. */
  jobId: string | null;
  attempt: number;
  state: 'submitting' | 'pending' | 'running' | 'completed' | 'failed' | 'cancelled' | 'timeout' | 'unknown';
  reason: string | null;
  lastIteration: number | null;
  /** The local run the task's bundle was imported as; null until it ends. */
  runId: number | null;
  loginHost: string | null;
  /** Its #SBATCH --time; null without a limit. */
  time: string | null;
}

export interface ClusterJobsDto {
  jobs: ClusterJobDto[];
  /** Why the scheduler could not be polled this time (the states are those seen last); null when it was. */
  pollError: string | null;
}

export type ApiMethod = keyof TurnLabApi;
/** One entry per method of TurnLabApi: the compiler refuses a missing or an extra one. */
const API_METHOD_SET: { readonly [K in ApiMethod]: true } = {
  appInfo: true,
  listRuns: true,
  runPage: true,
  getRuns: true,
  getRun: true,
  metricNames: true,
  metricSeries: true,
  latestMetrics: true,
  listCheckpoints: true,
  listEpisodes: true,
  episodeTurns: true,
  episodeIterations: true,
  runLog: true,
  listConfigs: true,
  startRun: true,
  stopRun: true,
  resumeRun: true,
  activeTrainings: true,
  queuedSeedRuns: true,
  sweepPlans: true,
  stopSeedGroup: true,
  updateRun: true,
  deleteRun: true,
  tagRuns: true,
  deleteRuns: true,
  startRunFromText: true,
  checkRunConfig: true,
  listBackends: true,
  evaluateCheckpoint: true,
  listEvaluations: true,
  getEvaluation: true,
  listEvaluationEpisodes: true,
  deleteCheckpoint: true,
  saveExport: true,
  saveCheckpointFolder: true,
  runModel: true,
  exportCheckpointModel: true,
  compareSeries: true,
  compareSeriesBatch: true,
  compareMetricNames: true,
  replaySettings: true,
  resimulateEpisode: true,
  listClusterJobs: true,
  cancelClusterJob: true,
  resumeClusterJob: true,
  startSweep: true,
  checkSweep: true,
};
export const API_METHODS = Object.keys(API_METHOD_SET) as readonly ApiMethod[];
export const IPC_CHANNEL_PREFIX = 'turnlab:';

/** Error codes the API reports, over IPC and HTTP alike. */
/** REFUSED: valid arguments, but not now (e.g. deleting a run that trains). */
export type ApiErrorCode = 'UNKNOWN_METHOD' | 'INVALID_ARGUMENTS' | 'NOT_FOUND' | 'REFUSED' | 'INTERNAL';
