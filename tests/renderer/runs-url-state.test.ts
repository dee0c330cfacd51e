// The Runs view's filters and sort read from the address, and the page request they make.
import { describe, expect, it } from 'vitest';
import { filtersFromQuery, sortFromQuery } from '../../renderer/src/runs/url-state';
import { pageQueryOf } from '../../renderer/src/stores/run-table';
import { idsWithParents } from '../../renderer/src/compare/lineage';

describe('Runs view address', () => {
  it('reads filters and sort, defaulting what is missing or unknown', () => {
    expect(filtersFromQuery({ search: 'lr', status: 'failed', tag: ['a', 'b'] })).toEqual({ search: 'lr', status: 'failed', env: '', algorithm: '', tag: '' });
    expect(sortFromQuery({ sort: 'bestValSuccess', desc: '1' })).toEqual({ key: 'bestValSuccess', descending: true });
    expect(sortFromQuery({ sort: 'config' })).toEqual({ key: 'id', descending: false });
  });

  it('asks the server for the filters set, a search trimmed', () => {
    const filters = { search: '  sweep-7 ', status: '', env: 'Bandit', algorithm: '', tag: '' };
    expect(pageQueryOf(filters, 'name', true)).toEqual({ sort: 'name', descending: true, search: 'sweep-7', env: 'Bandit' });
  });
});

describe("Compare's series call", () => {
  it('adds the parents of the forks, once, after the runs', () => {
    const run = (id: number, parentRunId: number | null = null, parentIteration: number | null = null) => ({ id, parentRunId, parentIteration });
    expect(idsWithParents([run(5, 2, 10), run(6, 2, 20), run(2), run(7, 3, null)])).toEqual([5, 6, 2, 7]);
    expect(idsWithParents([run(5, 1, 10)])).toEqual([5, 1]);
  });
});
