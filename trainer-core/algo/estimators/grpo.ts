import { defineEstimator } from '../estimator';
import { computeGrpo } from '../grpo';

export const grpo = defineEstimator({
  name: 'grpo',
  description: "each episode's return against its group's (divided by the group's std unless norm_adv_by_std_in_grpo is false)",
  reads: ['groupIds'],
  settings: ['norm_adv_by_std_in_grpo'],
  compute: ({ rows, cols, rewards, mask, groupIds }, s) => computeGrpo({ rows, cols, rewards, mask, groupIds, normByStd: s.norm_adv_by_std_in_grpo }),
});
