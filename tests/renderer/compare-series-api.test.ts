// compareSeries: the one batched call the Compare view makes per metric.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../main/api';
import { openStore, type Store } from '../../main/store/db';
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
