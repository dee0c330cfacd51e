// The UI benchmark's store generator writes through the store's own API: runs a reader can list,
// about sixty metrics an iteration, validation every fifth, episodes with their turns.
import { afterEach, describe, expect, it } from 'vitest';
import { BIG_STORE_METRICS, generateBigStore } from '../../bench/big-store';
import { openStore } from '../../main/store/db';
import { makeTempDir, type TempDir } from '../helpers/fixtures';

let tmp: TempDir | undefined;
afterEach(() => tmp?.cleanup());

describe('big-store generator', () => {
  it('fills a data folder with runs of realistic shape', () => {
    tmp = makeTempDir();
    const stats = generateBigStore(tmp.dir, { runs: 3, iterations: 5, trainEpisodes: 4, valEpisodes: 2 });
    // With the four validation metrics, about sixty names a run.
    expect(BIG_STORE_METRICS.length + 4).toBeGreaterThanOrEqual(55);
    expect(stats).toMatchObject({ runs: 3, metricRows: 3 * (5 * BIG_STORE_METRICS.length + 4), episodes: 3 * (5 * 4 + 2) });
    const store = openStore(tmp.dir);
    try {
      const runs = store.runs.list();
      expect(runs.map((r) => [r.status, r.iterations])).toEqual([['completed', 5], ['completed', 5], ['completed', 5]]);
      expect(runs[0].bestValSuccess).not.toBeNull();
      expect(store.episodes.listByIteration(runs[1].id, 5, { split: 'val' })).toHaveLength(2);
      const [episode] = store.episodes.listByIteration(runs[1].id, 1, {});
      expect(store.turns.listByEpisode(episode.id).length).toBe(episode.numTurns);
    } finally {
      store.close();
    }
  });
});
