// The queue a seed group trains through: never more runs at once than asked, every seed in
// order, and the seeds not yet started left alone once cancelled.
import { describe, expect, it } from 'vitest';
import { freshGroupName, parseSeeds, seedGroupOf } from '../../preload/seed-list';
import { defaultConcurrency, runQueued } from '../../main/trainer-host/work-queue';

/** A job the test finishes by hand, so how many run at once is read, not timed. */
interface Job {
  item: number;
  finish: () => void;
}

function manualWork() {
  const running: Job[] = [];
  const started: number[] = [];
  let most = 0;
  const work = (item: number) =>
    new Promise<number>((resolve) => {
      started.push(item);
      const job: Job = { item, finish: () => (running.splice(running.indexOf(job), 1), resolve(item * 10)) };
      running.push(job);
      most = Math.max(most, running.length);
    });
  return { running, started, work, most: () => most };
}

/** Lets the queue react to a finished job (its continuation runs on the microtask queue). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('runQueued', () => {
  it.each([1, 2, 3])('never runs more than %i at once and finishes every item in order', async (concurrency) => {
    const items = [0, 1, 2, 3, 4, 5, 6];
    const w = manualWork();
    const all = runQueued(items, concurrency, w.work);
    await settle();
    while (w.running.length > 0) {
      expect(w.running.length).toBeLessThanOrEqual(concurrency);
      w.running[0].finish();
      await settle();
    }
    const outcomes = await all;
    expect(w.most()).toBe(concurrency);
    expect(w.started).toEqual(items);
    expect(outcomes.map((o) => (o?.status === 'fulfilled' ? o.value : null))).toEqual(items.map((i) => i * 10));
  });

  it('starts nothing more once cancelled, and keeps a failure as that item outcome', async () => {
    let cancelled = false;
    const w = manualWork();
    const all = runQueued([0, 1, 2, 3], 2, (item) => (item === 1 ? Promise.reject(new Error('refused')) : w.work(item)), () => cancelled);
    await settle();
    // 0 runs, 1 failed at once, so 2 took its place.
    expect(w.running.map((j) => j.item)).toEqual([0, 2]);
    cancelled = true;
    w.running[0].finish();
    w.running[0].finish();
    const outcomes = await all;
    expect(outcomes[1]).toMatchObject({ status: 'rejected' });
    expect(outcomes[3]).toBeUndefined();
    expect(w.started).toEqual([0, 2]);
  });

  it('refuses a concurrency below one', async () => {
    await expect(runQueued([1], 0, async () => 1)).rejects.toThrow(/at least 1/);
  });

  it('defaults to half the cores, at least one', () => {
    expect([1, 2, 3, 16].map((cores) => defaultConcurrency(cores))).toEqual([1, 1, 1, 8]);
  });
});

describe('seed lists and groups', () => {
  it('reads a count as 0..n-1 and a list as given', () => {
    expect(parseSeeds('5')).toEqual([0, 1, 2, 3, 4]);
    expect(parseSeeds(' 1, 2,3 ')).toEqual([1, 2, 3]);
    expect(() => parseSeeds('0')).toThrow(/1 to 64/);
    expect(() => parseSeeds('1,1')).toThrow(/twice/);
    expect(() => parseSeeds('a')).toThrow(/neither/);
  });

  it('names a group apart from those taken and finds it in tags', () => {
    expect(freshGroupName('fl', [])).toBe('fl');
    expect(freshGroupName('fl', ['fl', 'fl#2'])).toBe('fl#3');
    expect(seedGroupOf(['x', 'seeds:fl#2'])).toBe('fl#2');
    expect(seedGroupOf(['x'])).toBeNull();
  });
});
