// The Runs view's filters and sort read from the address, and the page request they make.
import { describe, expect, it } from 'vitest';
import { filtersFromQuery, sortFromQuery } from '../../renderer/src/runs/url-state';
import { pageQueryOf, whereProblem } from '../../renderer/src/stores/run-table';
import { idsWithParents } from '../../renderer/src/compare/lineage';

describe('Runs view address', () => {
  it('reads filters and sort, defaulting what is missing or unknown', () => {
    expect(filtersFromQuery({ search: 'lr', status: 'failed', tag: ['a', 'b'] })).toEqual({ search: 'lr', status: 'failed', env: '', algorithm: '', tag: '', where: '' });
    expect(filtersFromQuery({ where: 'trainer.seed>1' }).where).toBe('trainer.seed>1');
    expect(sortFromQuery({ sort: 'bestValSuccess', desc: '1' })).toEqual({ key: 'bestValSuccess', descending: true });
    expect(sortFromQuery({ sort: 'config' })).toEqual({ key: 'id', descending: false });
  });

  it('asks the server for the filters set, a search trimmed', () => {
    const filters = { search: '  sweep-7 ', status: '', env: 'Bandit', algorithm: '', tag: '', where: '' };
    expect(pageQueryOf(filters, 'name', true)).toEqual({ sort: 'name', descending: true, search: 'sweep-7', env: 'Bandit' });
  });

  it('sends the conditions that read, and leaves out those that do not, saying why', () => {
    const filters = { search: '', status: '', env: '', algorithm: '', tag: '', where: 'trainer.seed>1 and metric:val/Bandit/success>=0.5' };
    expect(pageQueryOf(filters, 'id', false).where).toEqual([
      { column: 'trainer.seed', op: '>', value: 1 },
      { column: 'metric:val/Bandit/success', op: '>=', value: 0.5 },
    ]);
    expect(pageQueryOf({ ...filters, where: 'trainer.seed>' }, 'id', false).where).toBeUndefined();
    expect(whereProblem('trainer.seed>')).toMatch(/has no value after its operator/);
    expect(whereProblem('')).toBeNull();
  });
});

describe("Compare's series call", () => {
  it('adds the parents of the forks, once, after the runs', () => {
    const run = (id: number, parentRunId: number | null = null, parentIteration: number | null = null) => ({ id, parentRunId, parentIteration });
    expect(idsWithParents([run(5, 2, 10), run(6, 2, 20), run(2), run(7, 3, null)])).toEqual([5, 6, 2, 7]);
    expect(idsWithParents([run(5, 1, 10)])).toEqual([5, 1]);
  });
});
