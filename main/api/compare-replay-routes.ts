// Compare's series across runs and Replay's re-simulation of a stored episode.
import { z } from 'zod';
import { seriesBatch } from '../services/series-batch';
import { replaySettings, resimulateEpisode } from '../services/resimulate';
import { ApiError, asRefusal, type RouteTable, requireRun } from './support';
import { id, compareRunIds } from './schemas';

export const compareReplayRoutes = {
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
      const runs = new Map<string, number>();
      for (const runId of new Set(runIds)) {
        for (const name of new Set(store.metrics.names(runId))) runs.set(name, (runs.get(name) ?? 0) + 1);
      }
      return [...runs.keys()].sort().map((name) => ({ name, runs: runs.get(name) ?? 0 }));
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
} satisfies Partial<RouteTable>;
