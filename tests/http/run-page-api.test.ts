// runPage and getRuns through the API table: the Runs view's page and Compare's selected runs,
// checked arguments, and a row that carries no whole config.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../main/api';
import { openStore, type Store } from '../../main/store/db';
import { makeFixtureDataDir, type FixtureDataDir } from '../helpers/fixtures';

let fixture: FixtureDataDir;
let store: Store;
let api: Api;

beforeAll(() => {
  fixture = makeFixtureDataDir({ iterations: 3 });
  store = openStore(fixture.dir);
  api = createApi(store, { version: '0.0.0' });
});

afterAll(() => {
  store?.close();
  fixture?.cleanup();
});

describe('runPage', () => {
  it('pages the runs with their progress and no more of the config than the table reads', async () => {
    const ids = fixture.runs.map((r) => r.run.id);
    const page = await api.runPage({ limit: 1, sort: 'id', descending: true, withChoices: true });
    expect(page.total).toBe(ids.length);
    expect(page.rows.map((r) => r.id)).toEqual([Math.max(...ids)]);
    expect(page.rows[0].iterations).toBe(3);
    expect(Object.keys(page.rows[0].config).sort()).toEqual(['trainer', 'warm_start']);
    expect(page.choices?.status.length).toBeGreaterThan(0);
    const next = await api.runPage({ offset: 1, limit: 1, sort: 'id', descending: true });
    expect(next.rows[0].id).toBeLessThan(page.rows[0].id);
    expect(next.choices).toBeNull();
  });

  it('refuses an unknown sort, an unknown key and a page past the limit, naming the method', async () => {
    await expect(api.call('runPage', [{ sort: 'config' }])).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    await expect(api.call('runPage', [{ order: 'id' }])).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    await expect(api.call('runPage', [{ limit: 5000 }])).rejects.toThrow(/^runPage: /);
  });
});

describe('getRuns', () => {
  it('returns the runs asked for whole, in that order, leaving unknown ids out', async () => {
    const ids = fixture.runs.map((r) => r.run.id).reverse();
    const runs = await api.getRuns([...ids, 9999]);
    expect(runs.map((r) => r.id)).toEqual(ids);
    expect(runs[0].config).toEqual((await api.getRun(ids[0])).config);
  });
});
