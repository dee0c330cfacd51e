// Reading runs: the Runs table's pages, one run's metrics, checkpoints, episodes and log, the ready configs.
import { z } from 'zod';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { markAbandonedRuns } from '../services/run-owner';
import { ApiError, activeRunIds, type RouteTable, requireRun } from './support';
import { id, iteration, split, metricNames, runPageQuery, episodeFilter } from './schemas';

export const runReadRoutes = {
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
} satisfies Partial<RouteTable>;
