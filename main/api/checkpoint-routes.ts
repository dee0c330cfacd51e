// Checkpoints and what leaves the app: evaluations, deletion, saved exports and folders, model export.
import { z } from 'zod';
import type { StoredEvaluationDto } from '../../preload/contract';
import { MAX_ROLLOUT_EPISODES } from '../../trainer-core';
import { isAbsolute } from 'node:path';
import type { EvaluationRecord } from '../store/types';
import { deleteCheckpoint, requireCheckpoint } from '../services/run-admin';
import { evaluateInChildProcess } from '../services/evaluation';
import { copyCheckpointFolder, exportFileName, exportToFile, workbenchExport } from '../services/workbench-files';
import { EXPORT_FORMATS, EXPORT_KINDS } from '../services/export';
import { describeRunModel } from '../services/run-model';
import { exportModelInChildProcess } from '../services/model-export-process';
import { ApiError, managing, managingAsync, activeRunIds, requireDialogs, requireManager, asRefusal, type RouteTable, requireRun, requireEvaluation } from './support';
import { id, episodeFilter } from './schemas';

/** An evaluation without the config it played with: the list needs its figures, not the whole config. */
function evaluationDto({ config: _config, ...evaluation }: EvaluationRecord): StoredEvaluationDto {
  return evaluation;
}

export const checkpointRoutes = {
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
    args: z.tuple([
      z.strictObject({ what: z.enum(EXPORT_KINDS), format: z.enum(EXPORT_FORMATS), runIds: z.array(id).max(10_000), evaluationId: id.optional() }),
    ]),
    handle: (store, options, request) =>
      managingAsync(options, async () => {
        const dialogs = requireDialogs(options, 'saveExport');
        const checked = workbenchExport(store, request);
        const path = await dialogs.chooseFile(exportFileName(store, checked, request.runIds.length === 0));
        if (path === null) return null;
        return exportToFile(store, checked, path);
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
} satisfies Partial<RouteTable>;
