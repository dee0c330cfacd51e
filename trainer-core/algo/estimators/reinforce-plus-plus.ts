import { defineEstimator } from '../estimator';
import { computeReinforcePlusPlus, computeReinforcePlusPlusBaseline } from '../reinforce-plus-plus';

export const reinforcePlusPlus = defineEstimator({
  name: 'reinforce_plus_plus',
  description: 'discounted return-to-go, whitened over the batch',
  reads: [],
  settings: ['gamma'],
  compute: ({ rows, cols, rewards, mask }, s) => computeReinforcePlusPlus({ rows, cols, rewards, mask, gamma: s.gamma }),
});

export const reinforcePlusPlusBaseline = defineEstimator({
  name: 'reinforce_plus_plus_baseline',
  description: "each episode's return minus its group's mean, whitened over the batch",
  reads: ['groupIds'],
  settings: [],
  compute: ({ rows, cols, rewards, mask, groupIds }) => computeReinforcePlusPlusBaseline({ rows, cols, rewards, mask, groupIds }),
});
