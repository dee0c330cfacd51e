// The cluster's routes: Slurm jobs listed and cancelled, sweeps started (locally or on Slurm).
import { z } from 'zod';
import type { ClusterJobDto } from '../../preload/contract';
import { writeEditedConfig } from '../services/workbench-files';
import { MAX_GROUP_SEEDS } from '../../preload/seed-list';
import { EDITED_TEXT_NAME } from '../services/config-check';
import { namingEditedText, withoutEditedFile } from '../services/edited-start';
import { ClusterJobs, type ClusterJob } from '../cluster/jobs';
import { SlurmError } from '../cluster/slurm';
import { cancelJob, refreshJobs, resumeJob } from '../cluster/slurm-sweep';
import { startSweep } from '../cluster/start-sweep';
import { checkSweep } from '../cluster/check-sweep';
import { rmSync } from 'node:fs';
import { ApiError, requireManager, type RouteTable } from './support';
import { overrides, runName, concurrency, yamlPath, id } from './schemas';

function clusterJobDto(job: ClusterJob): ClusterJobDto {
  const { id, sweep, seedGroup, name, seed, jobId, attempt, state, reason, lastIteration, runId, loginHost } = job;
  return { id, sweep, seedGroup, name, seed, jobId, attempt, state, reason, lastIteration, runId, loginHost, time: job.resources.time ?? null };
}

/** A sweep's axes, one `key=v1,v2` a line. */
const grid = z.array(z.string().min(1).max(2000)).max(8);

export const clusterRoutes = {
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
        grid,
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
  checkSweep: {
    args: z.tuple([
      z
        .strictObject({ configPath: yamlPath.optional(), yaml: z.string().min(1).max(200_000).optional(), overrides, grid })
        .refine((r) => (r.configPath === undefined) !== (r.yaml === undefined), 'give exactly one of configPath and yaml'),
    ]),
    handle: async (store, _options, request) => {
      const overrideList = request.overrides ?? [];
      if (request.yaml === undefined) return checkSweep(request.configPath!, overrideList, request.grid);
      // Read from a file as startSweep reads it (a custom env's module beside the text), then gone.
      let configPath: string;
      try {
        configPath = writeEditedConfig(store, request.yaml);
      } catch (error) {
        return { settings: 0, leftOut: [], problem: (error as Error).message };
      }
      try {
        const answer = await checkSweep(configPath, overrideList, request.grid);
        return answer.problem === null ? answer : { ...answer, problem: namingEditedText(configPath, EDITED_TEXT_NAME, answer.problem) };
      } finally {
        rmSync(configPath, { force: true });
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
  resumeClusterJob: {
    args: z.tuple([id, z.strictObject({ time: z.string().min(1).max(50).optional() }).optional()]),
    handle: async (store, _options, jobId, request) => {
      if (!new ClusterJobs(store).get(jobId)) throw new ApiError('NOT_FOUND', `unknown cluster job ${jobId}`);
      try {
        return clusterJobDto(await resumeJob(store, String(jobId), undefined, { time: request?.time }));
      } catch (error) {
        throw error instanceof SlurmError ? new ApiError('REFUSED', error.message) : error;
      }
    },
  },
} satisfies Partial<RouteTable>;
