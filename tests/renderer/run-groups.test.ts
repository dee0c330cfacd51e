import { describe, expect, it } from 'vitest';
import type { RunDto } from '../../preload/contract';
import { runGroupsOf, seedsOf, statusLine } from '../../preload/seed-groups';
import { compareQueryOf, readSeedChoice, sharedSeedGroup } from '../../renderer/src/stores/run-groups';

function run(id: number, seed: number, tags: string[], status: RunDto['status'] = 'completed'): RunDto {
  return { id, seed, tags, status, envTags: ['Bandit'], name: `r${id}` } as RunDto;
}

describe('seed groups in the Runs view', () => {
  it('gathers tagged runs by group, each by seed, the newest group first', () => {
    const groups = runGroupsOf([
      run(1, 1, ['seeds:a']),
      run(2, 0, ['seeds:a'], 'running'),
      run(3, 0, []),
      run(4, 0, ['x', 'seeds:b']),
    ]);
    expect(groups.map((g) => [g.name, g.tag, g.runs.map((r) => r.id)])).toEqual([
      ['b', 'seeds:b', [4]],
      ['a', 'seeds:a', [2, 1]],
    ]);
    expect(statusLine(groups[1])).toBe('1 running, 1 completed');
    expect(compareQueryOf(groups[1])).toEqual({ runs: '2,1', group: '1', metric: ['val/Bandit/success'] });
  });

  it("names runs of one seed group by the group (Compare's label), and none otherwise", () => {
    expect(sharedSeedGroup([run(1, 0, ['seeds:lr-sweep']), run(2, 1, ['x', 'seeds:lr-sweep'])])).toBe('lr-sweep');
    expect(sharedSeedGroup([run(1, 0, ['seeds:a']), run(2, 1, ['seeds:b'])])).toBeNull();
    expect(sharedSeedGroup([run(1, 0, ['seeds:a']), run(2, 1, [])])).toBeNull();
  });

  it('adds the seeds still queued, and a group with none started comes first', () => {
    const groups = runGroupsOf([run(1, 0, ['seeds:a'])], [
      { group: 'a', seed: 2, name: 'a-s2', cancelled: false },
      { group: 'a', seed: 1, name: 'a-s1', cancelled: false },
      { group: 'c', seed: 0, name: 'c-s0', cancelled: false },
    ]);
    expect(groups.map((g) => [g.name, seedsOf(g), statusLine(g)])).toEqual([
      ['c', [0], '1 queued'],
      ['a', [0, 1, 2], '1 completed, 2 queued'],
    ]);
  });

  it("lists the seeds a stop cancelled with the group's runs; a group that trained nothing is none", () => {
    const groups = runGroupsOf([run(1, 0, ['seeds:a'])], [
      { group: 'a', seed: 1, name: 'a-s1', cancelled: true },
      { group: 'gone', seed: 0, name: 'gone-s0', cancelled: true },
    ]);
    expect(groups.map((g) => [g.name, seedsOf(g), statusLine(g)])).toEqual([['a', [0, 1], '1 completed, 1 cancelled']]);
  });
});

describe('the seeds field', () => {
  it('asks for nothing when empty, a group for a count or a list, and says what is wrong', () => {
    expect(readSeedChoice({ seedsText: ' ', concurrencyText: '' })).toEqual({ request: {}, problem: null });
    expect(readSeedChoice({ seedsText: '3', concurrencyText: '' })).toEqual({ request: { seeds: [0, 1, 2] }, problem: null });
    expect(readSeedChoice({ seedsText: '4,7', concurrencyText: '2' })).toEqual({ request: { seeds: [4, 7], concurrency: 2 }, problem: null });
    expect(readSeedChoice({ seedsText: '4,7', concurrencyText: '0' }).problem).toMatch(/1 to 64/);
    // A bare number is a count; one seed of choice is a list of one, which 0 (no count) points to.
    expect(readSeedChoice({ seedsText: '7,', concurrencyText: '' })).toEqual({ request: { seeds: [7] }, problem: null });
    expect(readSeedChoice({ seedsText: '0', concurrencyText: '' }).problem).toBe('a count of seeds is 1 to 64, not 0; seed 0 alone is 1 (a count starts at seed 0), any one seed a list of one: 0,');
    expect(readSeedChoice({ seedsText: '', concurrencyText: '2' }).problem).toMatch(/give seeds first/);
    expect(readSeedChoice({ seedsText: '1;2', concurrencyText: '' }).problem).toMatch(/neither a count/);
  });
});
