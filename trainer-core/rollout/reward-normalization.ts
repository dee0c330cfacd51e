import { groupIndices, mean, std } from './stats';

/**
 * RAGEN's reward normalisation: scores are normalised within a grouping (episodes sharing a
 * start state, a tag, or the whole batch) by one of four methods. The format penalty is added
 * after normalisation by the caller, as RAGEN does, so it is never normalised away.
 */

export type RewardGrouping = 'group' | 'tag' | 'batch' | 'state' | 'inductive';
export type RewardMethod = 'mean_std' | 'mean' | 'asym_clip' | 'identity';

export interface EpisodeGroupKey {
  groupId: number;
  tag: string;
}

/** RAGEN treats a group whose std is at most this as having no signal (all zeros). */
const STD_FLOOR = 1e-6;

export function groupingKeys(episodes: readonly EpisodeGroupKey[], grouping: RewardGrouping): string[] {
  switch (grouping) {
    case 'group':
    case 'state':
      return episodes.map((e) => `group:${e.groupId}`);
    case 'tag':
    case 'inductive':
      return episodes.map((e) => `tag:${e.tag}`);
    case 'batch':
      return episodes.map(() => 'batch');
  }
}

/** Normalises `scores` within each set of equal `keys`. */
export function normalizeScores(scores: readonly number[], keys: readonly string[], method: RewardMethod): number[] {
  if (scores.length !== keys.length) throw new Error(`normalizeScores: ${scores.length} scores but ${keys.length} keys`);
  const out = [...scores];
  if (method === 'identity') return out;
  for (const indices of groupIndices(keys).values()) {
    const values = indices.map((i) => scores[i]);
    const m = mean(values);
    const s = std(values);
    indices.forEach((index) => {
      const centred = scores[index] - m;
      if (method === 'mean') out[index] = centred;
      else {
        const z = s > STD_FLOOR ? centred / (s + STD_FLOOR) : 0;
        out[index] = method === 'asym_clip' ? Math.min(3, Math.max(-1, z)) : z;
      }
    });
  }
  return out;
}
