import { defineEstimator } from '../estimator';
import { computeGigpo } from '../gigpo';

export const gigpo = defineEstimator({
  name: 'gigpo',
  description: "GRPO's episode advantage plus a step advantage among turns played from the same state (verl-agent)",
  reads: ['groupIds', 'turnEnds', 'stateKeys'],
  rewardsPerTurn: true,
  settings: ['gamma', 'gigpo'],
  compute: ({ rows, cols, rewards, mask, groupIds, turnEnds, stateKeys }, s) =>
    computeGigpo({
      rows,
      cols,
      rewards,
      mask,
      groupIds,
      turnEnds,
      stateKeys,
      // verl-agent discounts step returns per turn with algorithm.gamma.
      gamma: s.gamma,
      stepWeight: s.gigpo.step_advantage_w,
      episodeWeight: s.gigpo.episode_advantage_w,
      normByStd: s.gigpo.mode === 'mean_std_norm',
    }),
});
