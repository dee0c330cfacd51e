// Per-episode figures for the group view (every episode of one group side by side, with its
// boards and actions) and the episode list cut into groups.
import type { EpisodeDto, TurnDto } from '../../../preload/contract';

export interface GroupStep {
  /** The state the turn started from. */
  state: unknown;
  /** The actions the reply named, in order. */
  actions: string[];
  /** How many of them were valid. */
  numValidActions: number;
}

export interface GroupMember {
  episode: EpisodeDto;
  /** Mean of the turns' advantages; null when none was stored (validation episodes). */
  advantage: number | null;
  /** Tokens generated over the episode. */
  tokens: number;
  /** Each turn's board before it and what it played. */
  steps: GroupStep[];
  /** The board after the last action (re-simulated); null when it could not be rebuilt. */
  finalState: unknown;
}

export function groupMember(episode: EpisodeDto, turns: readonly TurnDto[], finalState: unknown = null): GroupMember {
  const advantages = turns.map((t) => t.advantageMean).filter((a): a is number => a !== null);
  return {
    episode,
    advantage: advantages.length > 0 ? advantages.reduce((a, b) => a + b, 0) / advantages.length : null,
    tokens: turns.reduce((sum, t) => sum + t.numTokens, 0),
    steps: turns.map((t) => ({ state: t.state, actions: t.actions, numValidActions: t.numValidActions })),
    finalState,
  };
}

/** Episodes of one group of one split, in env order. */
export function groupEpisodes(episodes: readonly EpisodeDto[], split: EpisodeDto['split'], groupId: number): EpisodeDto[] {
  return episodes.filter((e) => e.split === split && e.groupId === groupId).sort((a, b) => a.envIndex - b.envIndex);
}

export interface EpisodeGroup {
  /** `split/group`, unique in a listing. */
  key: string;
  split: EpisodeDto['split'];
  groupId: number;
  successes: number;
  episodes: EpisodeDto[];
}

/** The list cut into its groups: train before val, groups ascending, episodes in env order. */
export function episodesByGroup(episodes: readonly EpisodeDto[]): EpisodeGroup[] {
  const groups = new Map<string, EpisodeGroup>();
  const sorted = [...episodes].sort(
    (a, b) => a.split.localeCompare(b.split) || a.groupId - b.groupId || a.envTag.localeCompare(b.envTag) || a.envIndex - b.envIndex,
  );
  for (const episode of sorted) {
    const key = `${episode.split}/${episode.groupId}`;
    let group = groups.get(key);
    if (!group) {
      group = { key, split: episode.split, groupId: episode.groupId, successes: 0, episodes: [] };
      groups.set(key, group);
    }
    group.episodes.push(episode);
    if (episode.success) group.successes += 1;
  }
  return [...groups.values()];
}
