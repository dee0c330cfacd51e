import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_METHODS } from '../../preload/contract';
import { ApiError, createApi, isApiMethod, type Api } from '../../main/api';
import { openStore, type Store } from '../../main/store/db';
import { makeFixtureDataDir, type FixtureDataDir } from '../helpers/fixtures';

let fixture: FixtureDataDir;
let store: Store;
let api: Api;

beforeAll(() => {
  fixture = makeFixtureDataDir({ iterations: 3 });
  store = openStore(fixture.dir);
  api = createApi(store, { version: '1.2.3' });
});

afterAll(() => {
  store?.close();
  fixture?.cleanup();
});

describe('createApi', () => {
  it('implements every contract method: each method TurnLabApi declares is listed, routed and validated', async () => {
    // The interface's members, read from the source by TypeScript's parser, not from API_METHODS.
    const path = new URL('../../preload/contract.ts', import.meta.url);
    const source = ts.createSourceFile('contract.ts', readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const declared = source.statements
      .filter((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'TurnLabApi')
      .flatMap((s) => s.members.map((m) => (m.name && ts.isIdentifier(m.name) ? m.name.text : '')));
    expect(declared.length).toBeGreaterThan(30);
    expect([...API_METHODS].sort()).toEqual([...declared].sort());
    for (const method of declared) {
      expect(typeof (api as unknown as Record<string, unknown>)[method], method).toBe('function');
      expect(isApiMethod(method)).toBe(true);
      // A route exists and checks its arguments: ten strings fit no method's argument list.
      await expect(api.call(method, Array(10).fill('x')), method).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    }
    expect(isApiMethod('call')).toBe(false);
    expect(isApiMethod('constructor')).toBe(false);
  });

  it('accepts an explicit undefined for an optional argument, as IPC passes it', async () => {
    const runId = fixture.runs[0].run.id;
    const [iteration] = await api.episodeIterations(runId, undefined);
    const episodes = await api.listEpisodes(runId, iteration, undefined);
    expect(episodes.length).toBeGreaterThan(0);
    const successes = await api.listEpisodes(runId, iteration, { success: true });
    expect(successes.every((e) => e.success)).toBe(true);
  });

  it('validates direct calls like dispatched ones', async () => {
    const call = api.getRun as unknown as (runId: unknown) => Promise<unknown>;
    await expect(call('1')).rejects.toBeInstanceOf(ApiError);
    await expect(api.call('getRun', 'not an array')).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    await expect(api.call('nope', [])).rejects.toMatchObject({ code: 'UNKNOWN_METHOD' });
  });

  it('reports the data folder and version', async () => {
    expect(await api.appInfo()).toEqual({ version: '1.2.3', dataDir: fixture.dir });
  });
});

// runPage and getRuns: the Runs view's page and Compare's selected runs, checked arguments, and a
// row that carries no whole config.
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
    await expect(api.call('runPage', [{ where: [{ column: 'a b', op: '=', value: 1 }] }])).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    await expect(api.call('runPage', [{ where: [{ column: 'trainer.seed', op: 'LIKE', value: 1 }] }])).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    await expect(api.call('runPage', [{ where: [{ column: 'trainer.seed', op: '=', value: null }] }])).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    await expect(api.call('runPage', [{ where: [{ column: 'tag', op: '>', value: 'a' }] }])).rejects.toThrow(/tag is a list of the run's tags; it compares with = \(one of them is\) or != \(none is\) only/);
    await expect(api.call('runPage', [{ where: [{ column: 'algorithm.bi_level_gae', op: '<', value: true }] }])).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
  });

  it('keeps the runs that meet conditions on config keys and metrics, and names a column no run has', async () => {
    const grpo = fixture.runs.filter((r) => r.run.algorithm === 'grpo').map((r) => r.run.id);
    const page = await api.runPage({ where: [{ column: 'algorithm.adv_estimator', op: '=', value: 'grpo' }] });
    expect(page.rows.map((r) => r.id)).toEqual(grpo);
    expect(page.unknownColumns).toBeUndefined();
    const misspelt = await api.runPage({ where: [{ column: 'algorithm.adv_estimatr', op: '=', value: 'grpo' }] });
    expect(misspelt.total).toBe(0);
    expect(misspelt.unknownColumns).toEqual([{ column: 'algorithm.adv_estimatr', closest: 'algorithm.adv_estimator' }]);
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
