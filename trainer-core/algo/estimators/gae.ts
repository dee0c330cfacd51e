import { computeBiLevelGae } from '../bi-level-gae';
import { defineEstimator } from '../estimator';
import { computeGae } from '../gae';

/** PPO's GAE over generated tokens, or RAGEN's bi-level GAE with `algorithm.bi_level_gae`. */
export const gae = defineEstimator({
  name: 'gae',
  description: 'generalised advantage estimation with a critic (bi-level with algorithm.bi_level_gae)',
  reads: ['values'],
  settings: ['gamma', 'lam', 'bi_level_gae', 'high_level_gamma'],
  compute(batch, s) {
    const { rows, cols, rewards, mask, values } = batch;
    if (!s.bi_level_gae) return computeGae({ rows, cols, rewards, mask, values, gamma: s.gamma, lambda: s.lam });
    if (!batch.turnEnds) throw new RangeError("bi_level_gae needs turnEnds (each turn's last generated token per sequence) from the rollout");
    return computeBiLevelGae({ rows, cols, rewards, mask, values, turnEnds: batch.turnEnds, gamma: s.gamma, lambda: s.lam, highLevelGamma: s.high_level_gamma });
  },
});
