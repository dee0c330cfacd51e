// verl's compute_data_metrics names and values for one batch, worked by hand: two episodes of
// 3 and 2 columns, the second's last column padding, the second cut short by the context.
import { describe, expect, it } from 'vitest';
import { dataMetrics } from '../../trainer-core/train/data-metrics';

const f32 = (xs: number[]) => Float32Array.from(xs);

describe("verl's data metrics", () => {
  const input = {
    rows: 2,
    cols: 3,
    // Row 0 trains columns 1 and 2 (column 0 is prompt); row 1 trains column 1.
    mask: f32([0, 1, 1, 0, 1, 0]),
    scores: f32([0, 0, 1, 0, -0.5, 0]),
    rewards: f32([0, -0.25, 1, 0, -0.5, 0]),
    advantages: f32([0, 0.5, 0.5, 0, -1.5, 0]),
    returns: f32([0, 0.25, 1, 0, -0.5, 0]),
    values: null,
    replies: { total: 4, cut: 1 },
    rowLengths: [3, 2],
    contextFull: 1,
    shaping: null,
  };

  it('gives each episode its score and rewards, the masked advantages and returns, and reply lengths', () => {
    expect(dataMetrics(input)).toEqual({
      'critic/score/mean': 0.25,
      'critic/score/max': 1,
      'critic/score/min': -0.5,
      'critic/rewards/mean': 0.125,
      'critic/rewards/max': 0.75,
      'critic/rewards/min': -0.5,
      'critic/advantages/mean': -1 / 6,
      'critic/advantages/max': 0.5,
      'critic/advantages/min': -1.5,
      'critic/returns/mean': 0.25,
      'critic/returns/max': 1,
      'critic/returns/min': -0.5,
      'response_length/mean': 1.5,
      'response_length/max': 2,
      'response_length/min': 1,
      'response_length/clip_ratio': 0.25,
      'prompt_length/mean': 1,
      'prompt_length/max': 1,
      'prompt_length/min': 1,
      'prompt_length/clip_ratio': 0.5,
    });
  });

  it("adds the critic's values where there is one", () => {
    const metrics = dataMetrics({ ...input, values: f32([9, 0.5, 1.5, 9, 2, 9]) });
    expect([metrics['critic/values/mean'], metrics['critic/values/max'], metrics['critic/values/min']]).toEqual([4 / 3, 2, 0.5]);
    // returns - values over the trained tokens: -0.25, -0.5, -2.5 (unbiased variance 219/144); returns' 0.5625.
    expect(metrics['critic/vf_explained_var']).toBeCloseTo(1 - 219 / 144 / (0.5625 + 1e-5), 6);
    expect(dataMetrics({ ...input, values: f32([0, 0.25, 1, 0, -0.5, 0]) })['critic/vf_explained_var']).toBeCloseTo(1, 4);
    expect(metrics['critic/shaping/mean']).toBeUndefined();
  });

  it('spreads the shaping bonuses of the episodes where the run shapes', () => {
    const metrics = dataMetrics({ ...input, shaping: [0.5, -0.25] });
    expect([metrics['critic/shaping/mean'], metrics['critic/shaping/max'], metrics['critic/shaping/min']]).toEqual([0.125, 0.5, -0.25]);
  });
});
