import { defineEstimator } from '../estimator';
import { computeRloo } from '../rloo';

export const rloo = defineEstimator({
  name: 'rloo',
  description: "each episode's return against the mean of the others in its group (leave one out)",
  reads: ['groupIds'],
  settings: [],
  compute: ({ rows, cols, rewards, mask, groupIds }) => computeRloo({ rows, cols, rewards, mask, groupIds }),
});
