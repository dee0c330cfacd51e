// The desktop API: one table from each contract method to an argument schema and the store call
// that answers it. IPC and HTTP both dispatch through `call`, so both validate the same way and
// a malformed request never reaches the store.
import { z } from 'zod';
import type { ApiErrorCode, ApiMethod, BackendAvailabilityDto, ClusterJobDto, RunSortKeyDto, StoredEvaluationDto, TurnLabApi } from '../preload/contract';
import { MAX_ROLLOUT_EPISODES } from '../trainer-core';
import { API_METHODS, BULK_RUNS_MAX, COMPARE_RUNS_MAX, isRunColumn, isRunSortKey, RUN_COLUMNS_MAX, RUN_CONDITION_OPS } from '../preload/contract';
import { conditionProblem, RUN_CONDITIONS_MAX } from '../preload/run-conditions';
import { RUN_PAGE_MAX_LIMIT } from './store/repositories/run-page';
import { seriesBatch } from './services/series-batch';
import { readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Store } from './store/db';
import type { RunManager } from './trainer-host/run-manager';
import { StoreError } from './store/errors';
import { SPLITS, type EvaluationRecord } from './store/types';
import { deleteCheckpoint, deleteRun, deleteRuns, editRun, retagRuns, refuseWhileTraining, requireCheckpoint, RUN_EDIT_LIMITS, RunAdminError } from './services/run-admin';
import { markAbandonedRuns } from './services/run-owner';
import { stopTrainingProcess } from './services/stop-run';
import { queuedSeeds, stopSeedGroup } from './services/seed-groups';
import { evaluateInChildProcess } from './services/evaluation';
import type { RunEventWatcher } from './services/run-events';
import { copyCheckpointFolder, exportFileName, exportRunIds, exportToFile, writeEditedConfig } from './services/workbench-files';
import { EXPORT_FORMATS, EXPORT_KINDS } from './services/export';
import { replaySettings, resimulateEpisode } from './services/resimulate';
import { describeRunModel } from './services/run-model';
import { exportModelInChildProcess } from './services/model-export-process';
import { MAX_GROUP_SEEDS } from '../preload/seed-list';
import { checkRunConfig, EDITED_TEXT_NAME } from './services/config-check';
import { backendProber } from './services/backend-probe';
import { withoutEditedFile } from './services/edited-start';
import { ClusterJobs, type ClusterJob } from './cluster/jobs';
import { SlurmError } from './cluster/slurm';
import { cancelJob, refreshJobs } from './cluster/slurm-sweep';
import { startSweep } from './cluster/start-sweep';

/** A refusal the caller can act on; `code` picks the HTTP status. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  constructor(code: ApiErrorCode, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }
}

/** Where the user wants a file or folder; null when they cancel. */
export interface SaveDialogs {
  chooseFile(suggestedName: string): Promise<string | null>;
  /** `title` says what goes into the folder. */
  chooseFolder(title: string): Promise<string | null>;
}

export interface ApiOptions {
  /** The TurnLab version appInfo reports. */
  version: string;
  /** Folder of ready run configs that listConfigs offers. */
  configsDir?: string;
  /** Starts and stops trainer processes; absent, the run-control methods are refused. */
  runManager?: RunManager;
  /** Told after a call changed runs, so listeners hear of it before the next poll. */
  events?: RunEventWatcher;
  /** The desktop app's file dialogs; absent (browser mode), the save methods are refused. */
  dialogs?: SaveDialogs;
}

const probers = new WeakMap<ApiOptions, () => Promise<BackendAvailabilityDto[]>>();

/** Backends are probed once per server (its options), in a process of its own. */
function probeBackends(options: ApiOptions): Promise<BackendAvailabilityDto[]> {
  let prober = probers.get(options);
  if (!prober) {
    prober = backendProber(requireManager(options, 'listBackends').launcher);
    probers.set(options, prober);
  }
  return prober();
}

/** Runs a store-changing call: service refusals become API errors, listeners hear of the change. */
function managing<T>(options: ApiOptions, work: () => T): T {
  try {
    const result = work();
    options.events?.check();
    return result;
  } catch (error) {
    if (error instanceof RunAdminError) throw new ApiError(error.code, error.message);
    throw error;
  }
}

async function managingAsync<T>(options: ApiOptions, work: () => Promise<T>): Promise<T> {
  try {
    const result = await work();
    options.events?.check();
    return result;
  } catch (error) {
    if (error instanceof RunAdminError) throw new ApiError(error.code, error.message);
    throw error;
  }
}

function activeRunIds(options: ApiOptions): Set<number> {
  return new Set((options.runManager?.list() ?? []).map((t) => t.runId));
}

/** `method` names the refused call: the message is all that a script's log or a toast shows. */
function requireDialogs(options: ApiOptions, method: ApiMethod): SaveDialogs {
  if (!options.dialogs) throw new ApiError('REFUSED', `${method}: saving to a chosen place works in the desktop app; in the browser use the download links`);
  return options.dialogs;
}

function requireManager(options: ApiOptions, method: ApiMethod): RunManager {
  if (!options.runManager) throw new ApiError('INVALID_ARGUMENTS', `${method} needs run control, which this server was started without`);
  return options.runManager;
}

/** A trainer that refused to start (bad config, damaged checkpoint) is the caller's to fix. */
function asRefusal<T>(promise: Promise<T>): Promise<T> {
  return promise.catch((error: unknown) => {
    throw new ApiError('INVALID_ARGUMENTS', error instanceof Error ? error.message : String(error));
  });
}

const overrides = z.array(z.string().regex(/^[^=\s]+=/, 'expected key=value').max(2000)).max(200).optional();
const runName = z.string().min(1).max(200).optional();
const seeds = z.array(z.number().int().min(0).max(2 ** 31 - 1)).min(1).max(MAX_GROUP_SEEDS).optional();
const concurrency = z.number().int().min(1).max(64).optional();
/**
 * A config to train from: a YAML file only. Anyone holding the token may name any path, and a
 * config can name any module to load, so nothing else is read as a config.
 */
const yamlPath = z
  .string()
  .min(1)
  .max(4096)
  .refine((path) => /\.ya?ml$/i.test(path), 'a config must be a YAML file ending in .yaml or .yml');

const id = z.number().int().positive();
const compareRunIds = z.array(id).min(1).max(COMPARE_RUNS_MAX, `Compare takes at most ${COMPARE_RUNS_MAX} runs at once; select fewer (a filter, a tag)`);
const bulkRunIds = z.array(id).min(1).max(BULK_RUNS_MAX);
const iteration = z.number().int().nonnegative();
const split = z.enum(SPLITS);
const metricNames = z.array(z.string().min(1).max(500)).max(1000);
const runPageQuery = z
  .object({
    search: z.string().max(500).optional(),
    status: z.string().max(100).optional(),
    env: z.string().max(500).optional(),
    algorithm: z.string().max(200).optional(),
    tag: z.string().max(500).optional(),
    where: z
      .array(
        z.strictObject({
          column: z.string().refine(isRunColumn, 'a condition\'s column is a dotted config key (algorithm.adv_estimator) or metric:<name>'),
          op: z.enum(RUN_CONDITION_OPS),
          value: z.union([z.string().max(500), z.number().finite(), z.boolean()]),
        }).check((ctx) => {
          const problem = conditionProblem(ctx.value);
          if (problem !== null) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
        }),
      )
      .max(RUN_CONDITIONS_MAX)
      .optional(),
    sort: z
      .custom<RunSortKeyDto>((s) => typeof s === 'string' && isRunSortKey(s), 'a sort is a built-in column, config:<dotted key> or metric:<name>, e.g. config:algorithm.adv_estimator')
      .optional(),
    descending: z.boolean().optional(),
    columns: z.array(z.string().refine(isRunColumn, 'a column is a dotted config key (algorithm.adv_estimator) or metric:<name>')).max(RUN_COLUMNS_MAX).optional(),
    offset: z.number().int().nonnegative().optional(),
    limit: z.number().int().min(1).max(RUN_PAGE_MAX_LIMIT).optional(),
    withChoices: z.boolean().optional(),
  })
  .strict();
const episodeFilter = z.strictObject({
  split: split.optional(),
  success: z.boolean().optional(),
  groupId: z.number().int().nonnegative().optional(),
  envTag: z.string().min(1).optional(),
  filteredOut: z.boolean().optional(),
});

type Handler<M extends ApiMethod> = (store: Store, options: ApiOptions, ...args: Parameters<TurnLabApi[M]>) =>
  | Awaited<ReturnType<TurnLabApi[M]>>
  | ReturnType<TurnLabApi[M]>;

interface Route<M extends ApiMethod> {
  /** The positional arguments as a tuple; extra arguments are refused. */
  args: z.ZodType<Parameters<TurnLabApi[M]>>;
  handle: Handler<M>;
}

type RouteTable = { [M in ApiMethod]: Route<M> };

function clusterJobDto(job: ClusterJob): ClusterJobDto {
  const { id, sweep, seedGroup, name, seed, jobId, attempt, state, reason, lastIteration, runId, loginHost } = job;
  return { id, sweep, seedGroup, name, seed, jobId, attempt, state, reason, lastIteration, runId, loginHost };
}

function requireRun(store: Store, runId: number): void {
  if (!store.runs.get(runId)) throw new ApiError('NOT_FOUND', `unknown run ${runId}: no run has this id (the Runs view lists them)`);
}

function requireEvaluation(store: Store, evaluationId: number): EvaluationRecord {
  const evaluation = store.evaluations.get(evaluationId);
  if (!evaluation) throw new ApiError('NOT_FOUND', `unknown evaluation ${evaluationId}: no evaluation has this id (the Checkpoints view lists them)`);
  return evaluation;
}

/** An evaluation without the config it played with: the list needs its figures, not the whole config. */
function evaluationDto({ config: _config, ...evaluation }: EvaluationRecord): StoredEvaluationDto {
  return evaluation;
}

const ROUTES: RouteTable = {
  listClusterJobs: {
    args: z.tuple([]),
    handle: async (store) => {
      const table = new ClusterJobs(store);
      let pollError: string | null = null;
      if (table.list().length > 0) {
        try {
          await refreshJobs(store);
        } catch (error) {
          pollError = (error as Error).message;
        }
      }
      return { jobs: table.list().map(clusterJobDto), pollError };
    },
  },
  startSweep: {
    args: z.tuple([
      z.strictObject({
        configPath: yamlPath.optional(),
        yaml: z.string().min(1).max(200_000).optional(),
        overrides,
        name: runName,
        grid: z.array(z.string().min(1).max(2000)).max(8),
        seeds: z.array(z.number().int().min(0).max(2 ** 31 - 1)).min(1).max(MAX_GROUP_SEEDS),
        executor: z.enum(['local', 'slurm']),
        concurrency,
        slurm: z
          .strictObject({
            remoteDir: z.string().min(1).max(4096),
            localDir: z.string().min(1).max(4096).optional(),
            ssh: z.string().min(1).max(255).optional(),
            partition: z.string().min(1).max(200).optional(),
            time: z.string().min(1).max(50).optional(),
            cpusPerTask: z.number().int().min(1).max(1024).optional(),
            gres: z.string().min(1).max(200).optional(),
            turnlab: z.string().min(1).max(1000).optional(),
            sbatch: z.array(z.string().min(1).max(500)).max(32).optional(),
          })
          .optional(),
      }).refine((r) => (r.configPath === undefined) !== (r.yaml === undefined), 'give exactly one of configPath and yaml'),
    ]),
    handle: async (store, options, request) => {
      try {
        const manager = request.executor === 'local' ? requireManager(options, 'startSweep') : options.runManager;
        if (request.yaml === undefined) return await startSweep(store, manager, { ...request, configPath: request.configPath! });
        const { yaml, ...rest } = request;
        const configPath = writeEditedConfig(store, yaml);
        return await withoutEditedFile(configPath, EDITED_TEXT_NAME, startSweep(store, manager, { ...rest, configPath }));
      } catch (error) {
        // The user's to fix: a bad grid or config key, sbatch refusing, a missing shared folder.
        throw error instanceof ApiError || !(error instanceof Error) ? error : new ApiError('REFUSED', error.message.replace(/\n/g, '; '));
      }
    },
  },
  cancelClusterJob: {
    args: z.tuple([id]),
    handle: async (store, _options, jobId) => {
      if (!new ClusterJobs(store).get(jobId)) throw new ApiError('NOT_FOUND', `unknown cluster job ${jobId}`);
      try {
        return clusterJobDto(await cancelJob(store, String(jobId)));
      } catch (error) {
        throw error instanceof SlurmError ? new ApiError('REFUSED', error.message) : error;
      }
    },
  },
  appInfo: {
    args: z.tuple([]),
    handle: (store, options) => ({ version: options.version, dataDir: store.dataDir }),
  },
  listRuns: {
    args: z.tuple([]),
    handle: (store, options) => {
      // Runs whose owner died (a CLI trainer killed in another terminal) read `interrupted`.
      markAbandonedRuns(store, { skip: activeRunIds(options) });
      return store.runs.list();
    },
  },
  runPage: {
    args: z.tuple([runPageQuery]),
    handle: (store, options, query) => {
      markAbandonedRuns(store, { skip: activeRunIds(options) });
      return store.runs.page(query);
    },
  },
  getRuns: {
    args: z.tuple([z.array(id).max(1000)]),
    handle: (store, _options, runIds) => store.runs.summaries(runIds),
  },
  getRun: {
    args: z.tuple([id]),
    handle: (store, _options, runId) => {
      const run = store.runs.summary(runId);
      if (!run) throw new ApiError('NOT_FOUND', `unknown run ${runId}: no run has this id (the Runs view lists them)`);
      return run;
    },
  },
  metricNames: {
    args: z.tuple([id]),
    handle: (store, _options, runId) => {
      requireRun(store, runId);
      return store.metrics.names(runId);
    },
  },
  metricSeries: {
    args: z.tuple([id, metricNames]),
    handle: (store, _options, runId, names) => {
      requireRun(store, runId);
      return Object.fromEntries(names.map((name) => [name, store.metrics.series(runId, name)]));
    },
  },
  latestMetrics: {
    args: z.tuple([id]),
    handle: (store, _options, runId) => {
      requireRun(store, runId);
      return store.metrics.latest(runId);
    },
  },
  listCheckpoints: {
    args: z.tuple([id]),
    handle: (store, _options, runId) => {
      requireRun(store, runId);
      return store.checkpoints.listByRun(runId);
    },
  },
  listEpisodes: {
    args: z.tuple([id, iteration, episodeFilter.optional()]),
    handle: (store, _options, runId, iter, filter) => {
      requireRun(store, runId);
      return store.episodes.listByIteration(runId, iter, filter ?? {});
    },
  },
  episodeTurns: {
    args: z.tuple([id]),
    handle: (store, _options, episodeId) => {
      if (!store.episodes.get(episodeId)) throw new ApiError('NOT_FOUND', `unknown episode ${episodeId}`);
      return store.turns.listByEpisode(episodeId);
    },
  },
  episodeIterations: {
    args: z.tuple([id, split.optional()]),
    handle: (store, _options, runId, which) => {
      requireRun(store, runId);
      return store.episodes.iterations(runId, which);
    },
  },
  runLog: {
    args: z.tuple([id, z.number().int().min(0).optional()]),
    handle: (store, _options, runId, afterId) => {
      requireRun(store, runId);
      return store.logs.list(runId, afterId ?? 0);
    },
  },
  listConfigs: {
    args: z.tuple([]),
    handle: (_store, options) => {
      const dir = options.configsDir;
      if (!dir) return [];
      return readdirSync(dir)
        .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
        .sort()
        .map((f) => ({ name: f.replace(/\.ya?ml$/, ''), path: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }));
    },
  },
  startRun: {
    args: z.tuple([z.strictObject({ configPath: yamlPath, overrides, name: runName, seeds, concurrency })]),
    handle: (_store, options, request) => asRefusal(requireManager(options, 'startRun').start(request)),
  },
  stopRun: {
    args: z.tuple([id]),
    handle: (store, options, runId) => {
      requireRun(store, runId);
      // A run another process here trains (`turnlab train` in a terminal) is stopped through its pid.
      if (!activeRunIds(options).has(runId)) return managing(options, () => void stopTrainingProcess(store, runId));
      try {
        requireManager(options, 'stopRun').stop(runId);
      } catch (error) {
        throw error instanceof ApiError ? error : new ApiError('INVALID_ARGUMENTS', (error as Error).message);
      }
    },
  },
  resumeRun: {
    args: z.tuple([
      z
        .strictObject({ runId: id.optional(), checkpointId: id.optional(), fork: z.boolean().optional(), discardLater: z.boolean().optional(), overrides, name: runName })
        .refine((r) => (r.runId === undefined) !== (r.checkpointId === undefined), 'give exactly one of runId and checkpointId'),
    ]),
    handle: (store, options, request) => {
      if (request.runId !== undefined) requireRun(store, request.runId);
      if (request.checkpointId !== undefined && !store.checkpoints.get(request.checkpointId)) {
        throw new ApiError('NOT_FOUND', `unknown checkpoint ${request.checkpointId}`);
      }
      // Continuing a run (not forking it) is refused while a live process owns it.
      const target = request.runId ?? store.checkpoints.get(request.checkpointId!)!.runId;
      if (!request.fork) managing(options, () => refuseWhileTraining(store, target, activeRunIds(options), 'resume'));
      return asRefusal(requireManager(options, 'resumeRun').resume(request));
    },
  },
  activeTrainings: {
    args: z.tuple([]),
    handle: (_store, options) => options.runManager?.list() ?? [],
  },
  sweepPlans: {
    args: z.tuple([]),
    handle: (store) => store.sweepPlans.list(),
  },
  queuedSeedRuns: {
    args: z.tuple([]),
    handle: (store) => queuedSeeds(store),
  },
  stopSeedGroup: {
    args: z.tuple([z.string().trim().min(1).max(RUN_EDIT_LIMITS.name)]),
    handle: (store, options, group) => {
      const own = activeRunIds(options);
      return managing(options, () =>
        stopSeedGroup(store, group, (runId) => {
          if (!own.has(runId)) return false;
          options.runManager!.stop(runId);
          return true;
        }),
      );
    },
  },
  updateRun: {
    args: z.tuple([
      id,
      z.strictObject({
        name: z.string().max(RUN_EDIT_LIMITS.name).optional(),
        tags: z.array(z.string().max(RUN_EDIT_LIMITS.tag)).max(RUN_EDIT_LIMITS.tags).optional(),
        notes: z.string().max(RUN_EDIT_LIMITS.notes).optional(),
      }),
    ]),
    handle: (store, options, runId, edit) =>
      managing(options, () => {
        editRun(store, runId, edit);
        return store.runs.summary(runId)!;
      }),
  },
  deleteRun: {
    args: z.tuple([id]),
    handle: (store, options, runId) => managingAsync(options, () => deleteRun(store, runId, activeRunIds(options))),
  },
  tagRuns: {
    args: z.tuple([
      z.strictObject({
        runIds: bulkRunIds,
        add: z.array(z.string().max(RUN_EDIT_LIMITS.tag)).max(RUN_EDIT_LIMITS.tags),
        remove: z.array(z.string().max(RUN_EDIT_LIMITS.tag)).max(RUN_EDIT_LIMITS.tags),
      }),
    ]),
    handle: (store, options, request) =>
      managing(options, () => {
        retagRuns(store, request.runIds, request);
      }),
  },
  deleteRuns: {
    args: z.tuple([bulkRunIds]),
    handle: (store, options, runIds) => managingAsync(options, () => deleteRuns(store, runIds, activeRunIds(options))),
  },
  startRunFromText: {
    args: z.tuple([z.strictObject({ yaml: z.string().min(1).max(200_000), overrides, name: runName, seeds, concurrency })]),
    handle: (store, options, request) =>
      managingAsync(options, () => {
        const manager = requireManager(options, 'startRunFromText');
        const { yaml, ...rest } = request;
        const configPath = writeEditedConfig(store, yaml);
        return asRefusal(withoutEditedFile(configPath, EDITED_TEXT_NAME, manager.start({ ...rest, configPath })));
      }),
  },
  checkRunConfig: {
    args: z.tuple([
      z
        .strictObject({ configPath: yamlPath.optional(), yaml: z.string().max(200_000).optional(), overrides })
        .refine((r) => (r.configPath === undefined) !== (r.yaml === undefined), 'give exactly one of configPath and yaml'),
    ]),
    handle: (_store, _options, request) => checkRunConfig(request),
  },
  listBackends: {
    args: z.tuple([]),
    handle: (_store, options) => probeBackends(options),
  },
  evaluateCheckpoint: {
    args: z.tuple([z.strictObject({ checkpointId: id, episodes: z.number().int().positive().max(MAX_ROLLOUT_EPISODES, `episodes must be at most ${MAX_ROLLOUT_EPISODES} (played at once)`).optional() })]),
    handle: (store, options, request) =>
      managingAsync(options, () => {
        requireCheckpoint(store, request.checkpointId);
        return asRefusal(evaluateInChildProcess(requireManager(options, 'evaluateCheckpoint').launcher, store.dataDir, request));
      }),
  },
  listEvaluations: {
    args: z.tuple([id]),
    handle: (store, _options, runId) => {
      requireRun(store, runId);
      return store.evaluations.listByRun(runId).map(evaluationDto);
    },
  },
  getEvaluation: {
    args: z.tuple([id]),
    handle: (store, _options, evaluationId) => evaluationDto(requireEvaluation(store, evaluationId)),
  },
  listEvaluationEpisodes: {
    args: z.tuple([id, episodeFilter.optional()]),
    handle: (store, _options, evaluationId, filter) => {
      requireEvaluation(store, evaluationId);
      return store.evaluations.episodes(evaluationId, filter ?? {});
    },
  },
  deleteCheckpoint: {
    args: z.tuple([id]),
    handle: (store, options, checkpointId) =>
      managing(options, () => deleteCheckpoint(store, checkpointId, activeRunIds(options))),
  },
  saveExport: {
    args: z.tuple([z.strictObject({ what: z.enum(EXPORT_KINDS), format: z.enum(EXPORT_FORMATS), runIds: z.array(id).max(10_000) })]),
    handle: (store, options, request) =>
      managingAsync(options, async () => {
        const dialogs = requireDialogs(options, 'saveExport');
        const runIds = exportRunIds(store, request.runIds);
        const path = await dialogs.chooseFile(exportFileName(store, { ...request, runIds }, request.runIds.length === 0));
        if (path === null) return null;
        return exportToFile(store, { ...request, runIds }, path);
      }),
  },
  saveCheckpointFolder: {
    args: z.tuple([id]),
    handle: (store, options, checkpointId) =>
      managingAsync(options, async () => {
        const dialogs = requireDialogs(options, 'saveCheckpointFolder');
        const checkpoint = requireCheckpoint(store, checkpointId);
        const folder = await dialogs.chooseFolder('Copy the model folder into');
        if (folder === null) return null;
        return { path: copyCheckpointFolder(store, checkpoint, folder) };
      }),
  },
  runModel: {
    args: z.tuple([id]),
    handle: (store, _options, runId) => {
      const run = store.runs.get(runId);
      if (!run) throw new ApiError('NOT_FOUND', `unknown run ${runId}: no run has this id (the Runs view lists them)`);
      return describeRunModel(run);
    },
  },
  exportCheckpointModel: {
    args: z.tuple([
      z.strictObject({
        checkpointId: id,
        out: z.string().min(1).max(4096).refine(isAbsolute, 'the output folder must be an absolute path on the machine the workbench runs on').optional(),
        merged: z.boolean(),
        dtype: z.enum(['F32', 'BF16']),
      }),
    ]),
    handle: (store, options, request) =>
      managingAsync(options, async () => {
        const checkpoint = requireCheckpoint(store, request.checkpointId);
        const model = describeRunModel(store.runs.get(checkpoint.runId)!);
        if (model.kind !== 'pretrained') {
          throw new ApiError(
            'REFUSED',
            `checkpoint ${checkpoint.id} of run ${checkpoint.runId} trains TurnLab's own transformer from scratch, which has no Hugging Face form; export-model takes a run started from actor_rollout_ref.model.path`,
          );
        }
        const launcher = requireManager(options, 'exportCheckpointModel').launcher;
        const out = request.out ?? (await requireDialogs(options, 'exportCheckpointModel').chooseFolder('Export the model as a Hugging Face folder into (a new or empty folder)'));
        if (out === null) return null;
        return asRefusal(exportModelInChildProcess(launcher, store.dataDir, { ...request, out }));
      }),
  },
  compareSeries: {
    args: z.tuple([compareRunIds, z.string().min(1).max(500)]),
    handle: (store, _options, runIds, name) => {
      for (const runId of runIds) requireRun(store, runId);
      return runIds.map((runId) => ({ runId, points: store.metrics.series(runId, name) }));
    },
  },
  compareSeriesBatch: {
    args: z.tuple([compareRunIds, z.array(z.string().min(1).max(500)).min(1).max(100), z.number().int().min(16).max(100_000).optional()]),
    handle: (store, _options, runIds, names, maxPoints) => {
      for (const runId of runIds) requireRun(store, runId);
      return seriesBatch(store, runIds, names, maxPoints);
    },
  },
  compareMetricNames: {
    args: z.tuple([compareRunIds]),
    handle: (store, _options, runIds) => {
      for (const runId of runIds) requireRun(store, runId);
      return [...new Set(runIds.flatMap((runId) => store.metrics.names(runId)))].sort();
    },
  },
  replaySettings: {
    args: z.tuple([id, z.string().min(1).max(200)]),
    handle: (store, _options, runId, envTag) => {
      requireRun(store, runId);
      return asRefusal(replaySettings(store, runId, envTag));
    },
  },
  resimulateEpisode: {
    args: z.tuple([id]),
    handle: (store, _options, episodeId) => {
      if (!store.episodes.get(episodeId)) throw new ApiError('NOT_FOUND', `unknown episode ${episodeId}`);
      return asRefusal(resimulateEpisode(store, episodeId));
    },
  },
};

export function isApiMethod(name: string): name is ApiMethod {
  return (API_METHODS as readonly string[]).includes(name);
}

/**
 * A bound's issue in words that name the field (`name must have at most 200 characters`): the
 * workbench shows the message without its argument path, and zod's own ("Too big: expected
 * string to have <=200 characters") names neither the field nor the unit a person counts in.
 */
function issueMessage(issue: z.core.$ZodIssue): string {
  if ((issue.code !== 'too_big' && issue.code !== 'too_small') || !/^Too (big|small):/.test(issue.message)) return issue.message;
  const field = [...issue.path].reverse().find((p): p is string => typeof p === 'string') ?? 'the value';
  const bound = String(issue.code === 'too_big' ? issue.maximum : issue.minimum);
  const side = issue.code === 'too_big' ? 'at most' : 'at least';
  if (issue.origin === 'string') return issue.code === 'too_small' && bound === '1' ? `${field} must not be empty` : `${field} must have ${side} ${bound} characters`;
  if (issue.origin === 'array') return `${field} must hold ${side} ${bound} items`;
  return `${field} must be ${side} ${bound}`;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? `argument ${issue.path.map(String).join('.')}` : 'arguments';
      return `${where}: ${issueMessage(issue)}`;
    })
    .join('; ');
}

/** Validates `args` for `method`; throws ApiError('INVALID_ARGUMENTS') naming what is wrong. */
export function parseArgs<M extends ApiMethod>(method: M, args: unknown): Parameters<TurnLabApi[M]> {
  if (!Array.isArray(args)) throw new ApiError('INVALID_ARGUMENTS', `${method}: arguments must be a JSON array`);
  const parsed = ROUTES[method].args.safeParse(args);
  if (!parsed.success) throw new ApiError('INVALID_ARGUMENTS', `${method}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

export interface Api extends TurnLabApi {
  /** Validates and runs one method by name: the entry point for IPC and HTTP. */
  call(method: string, args: unknown): Promise<unknown>;
}

function dispatch(store: Store, options: ApiOptions, method: string, args: unknown): unknown {
  if (!isApiMethod(method)) {
    throw new ApiError('UNKNOWN_METHOD', `unknown API method '${method}' (known: ${API_METHODS.join(', ')})`);
  }
  const valid = parseArgs(method, args);
  const route = ROUTES[method] as unknown as Route<ApiMethod> & {
    handle: (store: Store, options: ApiOptions, ...a: unknown[]) => unknown;
  };
  try {
    return route.handle(store, options, ...(valid as unknown[]));
  } catch (error) {
    if (error instanceof StoreError && error.code === 'RUN_NOT_FOUND') throw new ApiError('NOT_FOUND', error.message);
    throw error;
  }
}

export function createApi(store: Store, options: ApiOptions): Api {
  const call = async (method: string, args: unknown): Promise<unknown> => dispatch(store, options, method, args);
  const methods = Object.fromEntries(
    API_METHODS.map((method) => [method, (...args: unknown[]) => call(method, args)]),
  ) as unknown as TurnLabApi;
  return { ...methods, call };
}
