// Per-episode figures for the group view: every episode of one group side by side.
import type { EpisodeDto, TurnDto } from '../../../preload/contract';

export interface GroupMember {
  episode: EpisodeDto;
  /** Mean of the turns' advantages; null when none was stored (validation episodes). */
  advantage: number | null;
  /** Tokens generated over the episode. */
  tokens: number;
}

export function groupMember(episode: EpisodeDto, turns: readonly TurnDto[]): GroupMember {
  const advantages = turns.map((t) => t.advantageMean).filter((a): a is number => a !== null);
  return {
    episode,
    advantage: advantages.length > 0 ? advantages.reduce((a, b) => a + b, 0) / advantages.length : null,
    tokens: turns.reduce((sum, t) => sum + t.numTokens, 0),
  };
}

/** Episodes of one group of one split, in env order. */
export function groupEpisodes(episodes: readonly EpisodeDto[], split: EpisodeDto['split'], groupId: number): EpisodeDto[] {
  return episodes.filter((e) => e.split === split && e.groupId === groupId).sort((a, b) => a.envIndex - b.envIndex);
}
