// compareSeries: the one batched call the Compare view makes per metric.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../main/api';
import { openStore, type Store } from '../../main/store/db';
import { thinSeries } from '../../main/services/series-batch';
import { makeFixtureDataDir, type FixtureDataDir } from '../helpers/fixtures';

let fixture: FixtureDataDir;
let store: Store;
let api: Api;

beforeAll(() => {
  fixture = makeFixtureDataDir({ iterations: 6 });
  store = openStore(fixture.dir);
  api = createApi(store, { version: '0.0.0' });
});

afterAll(() => {
  store?.close();
  fixture?.cleanup();
});

describe('compareSeries', () => {
  it('returns one metric of several runs in the order asked, each as metricSeries gives it', async () => {
    const ids = fixture.runs.map((r) => r.run.id).reverse();
    const result = await api.compareSeries(ids, 'train/reward/mean');
    expect(result.map((r) => r.runId)).toEqual(ids);
    for (const entry of result) {
      const single = await api.metricSeries(entry.runId, ['train/reward/mean']);
      expect(entry.points).toEqual(single['train/reward/mean']);
      expect(entry.points.length).toBeGreaterThan(0);
    }
  });

  it('gives no points for a metric a run never logged', async () => {
    const [sokoban] = await api.compareSeries([fixture.runs[1].run.id], 'train/frozenlake/success');
    expect(sokoban.points).toEqual([]);
  });

  it('refuses unknown runs, an empty list and a missing name, naming the problem', async () => {
    await expect(api.call('compareSeries', [[9999], 'train/kl'])).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(api.call('compareSeries', [[], 'train/kl'])).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    await expect(api.call('compareSeries', [[1]])).rejects.toThrow(/^compareSeries: /);
  });
});

describe('compareSeriesBatch', () => {
  it('answers many metrics of many runs in one call, each series as compareSeries gives it', async () => {
    const ids = fixture.runs.map((r) => r.run.id);
    const names = ['train/reward/mean', 'train/frozenlake/success'];
    const batch = await api.compareSeriesBatch(ids, names);
    expect(batch.map((entry) => entry.name)).toEqual(names);
    for (const entry of batch) {
      expect(entry.downsampled).toBe(false);
      expect(entry.series).toEqual(await api.compareSeries(ids, entry.name));
    }
  });

  it('thins a long series on the server, keeping its spike, its dip and its last point', () => {
    const points = Array.from({ length: 10_000 }, (_, i) => ({ iteration: i, value: Math.sin(i / 50) as number | null, wallTime: i }));
    points[4321].value = 9;
    points[777].value = -9;
    points[5000].value = null;
    const thin = thinSeries(points, 500);
    expect(thin.length).toBeLessThanOrEqual(500);
    expect(thin.length).toBeGreaterThan(100);
    expect(thin).toContainEqual(points[4321]);
    expect(thin).toContainEqual(points[777]);
    expect(thin).toContainEqual(points[5000]);
    expect(thin.at(-1)).toEqual(points.at(-1));
    expect(thin.map((p) => p.iteration)).toEqual([...thin.map((p) => p.iteration)].sort((a, b) => a - b));
  });

  it('refuses unknown runs and empty name lists', async () => {
    await expect(api.call('compareSeriesBatch', [[9999], ['train/kl']])).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(api.call('compareSeriesBatch', [[1], []])).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
  });
});

describe('compareMetricNames', () => {
  it('answers the sorted union of the runs\' metric names in one call, each with how many runs log it', async () => {
    const ids = fixture.runs.map((r) => r.run.id);
    const perRun = await Promise.all(ids.map((runId) => api.metricNames(runId)));
    const expected = [...new Set(perRun.flat())].sort().map((name) => ({ name, runs: perRun.filter((names) => names.includes(name)).length }));
    expect(await api.compareMetricNames(ids)).toEqual(expected);
    expect(expected.some((m) => m.runs < ids.length)).toBe(true);
    await expect(api.call('compareMetricNames', [[9999]])).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
