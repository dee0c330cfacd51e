// Changing runs: start, stop, resume, seed groups, edits and deletions, config checks before a start.
import { z } from 'zod';
import { deleteRun, deleteRuns, editRun, retagRuns, refuseWhileTraining, RUN_EDIT_LIMITS } from '../services/run-admin';
import { stopTrainingProcess } from '../services/stop-run';
import { queuedSeeds, stopSeedGroup } from '../services/seed-groups';
import { writeEditedConfig } from '../services/workbench-files';
import { checkRunConfig, EDITED_TEXT_NAME } from '../services/config-check';
import { withoutEditedFile } from '../services/edited-start';
import { ApiError, probeBackends, managing, managingAsync, activeRunIds, requireManager, asRefusal, type RouteTable, requireRun } from './support';
import { overrides, runName, seeds, concurrency, yamlPath, id, bulkRunIds } from './schemas';

export const runControlRoutes = {
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
    // Each tag's own limit is the service's to name (with the tag), not zod's.
    args: z.tuple([
      z.strictObject({
        runIds: bulkRunIds,
        add: z.array(z.string().max(10_000)).max(RUN_EDIT_LIMITS.tags),
        remove: z.array(z.string().max(10_000)).max(RUN_EDIT_LIMITS.tags),
      }),
    ]),
    handle: (store, options, request) =>
      managing(options, () => {
        const { runs, changed } = retagRuns(store, request.runIds, request);
        return { runs: runs.length, changed };
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
} satisfies Partial<RouteTable>;
