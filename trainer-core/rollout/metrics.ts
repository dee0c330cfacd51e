import { groupIndices, mean, std } from './stats';

/**
 * Per-tag episode metrics named like RAGEN's (`<split>/<tag>/<name>`), averaged over the tag's
 * episodes; pass@k and the in-group reward statistics are averaged over the tag's groups.
 *
 * `action_is_valid` and `action_is_effective` are ratios over actions (valid among the actions
 * written, effective among those executed); RAGEN averages the last action's flag per turn,
 * which hides invalid actions that are not last.
 */

export interface EpisodeSummary {
  groupId: number;
  tag: string;
  success: boolean;
  numActions: number;
  numTurns: number;
  actionsWritten: number;
  actionsValid: number;
  actionsEffective: number;
  /** Generated tokens per turn, for the response-length metric. */
  responseLengths: number[];
  /** Turns whose reply had the required tags. */
  formatOkTurns: number;
  /** The episode's reward before normalisation, penalties included. */
  reward: number;
  /** The episode was cut short for lack of context room. */
  contextFull: boolean;
}

export function episodeMetricValues(e: EpisodeSummary): Record<string, number> {
  return {
    success: e.success ? 1 : 0,
    num_actions: e.numActions,
    num_turns: e.numTurns,
    action_is_valid: e.actionsWritten > 0 ? e.actionsValid / e.actionsWritten : 0,
    action_is_effective: e.numActions > 0 ? e.actionsEffective / e.numActions : 0,
    format_ok: e.numTurns > 0 ? e.formatOkTurns / e.numTurns : 0,
    response_length: mean(e.responseLengths),
    reward: e.reward,
    context_full: e.contextFull ? 1 : 0,
  };
}

export function computeRolloutMetrics(split: string, episodes: readonly EpisodeSummary[], groupSize: number): Record<string, number> {
  const metrics: Record<string, number> = {};
  const byTag = groupIndices(episodes.map((e) => e.tag));
  for (const [tag, indices] of byTag) {
    const prefix = `${split}/${tag}/`;
    const perEpisode = indices.map((i) => episodeMetricValues(episodes[i]));
    for (const name of Object.keys(perEpisode[0])) {
      metrics[prefix + name] = mean(perEpisode.map((values) => values[name]));
    }
    const groups = [...groupIndices(indices.map((i) => episodes[i].groupId)).values()].map((members) =>
      members.map((m) => episodes[indices[m]]),
    );
    metrics[`${prefix}pass@${groupSize}`] = mean(groups.map((g) => (g.some((e) => e.success) ? 1 : 0)));
    metrics[`${prefix}in_group_reward_std`] = mean(groups.map((g) => std(g.map((e) => e.reward))));
    metrics[`${prefix}in_group_reward_mean`] = mean(groups.map((g) => mean(g.map((e) => e.reward))));
    metrics[`${prefix}in_group_reward_max`] = mean(groups.map((g) => Math.max(...g.map((e) => e.reward))));
    metrics[`${prefix}num_episodes`] = indices.length;
  }
  return metrics;
}
