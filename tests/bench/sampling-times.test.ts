import { describe, expect, it } from 'vitest';
import { decodingRate, describeSampling } from '../../bench/lib/gpu-work';

describe('the batched-sampling line', () => {
  it('says the steps after the prefill were too short to time where the one-token rollout took as long as the whole', () => {
    expect(decodingRate(240, 0.2)).toBe(1200);
    expect(decodingRate(240, -0.008)).toBeNaN();
    const line = describeSampling([
      { rows: 4, times: { tokensPerSecond: 470, seconds: 0.136, prefillSeconds: 0.075, decodingTokensPerSecond: decodingRate(60, 0.061) } },
      { rows: 16, times: { tokensPerSecond: 753, seconds: 0.34, prefillSeconds: 0.348, decodingTokensPerSecond: decodingRate(240, -0.008) } },
    ]);
    expect(line).toBe('4 rows 470.0, 16 rows 753.0 (prefill and first token: 4 rows 0.075 of 0.136 s, 983.6 tokens/s after it; 16 rows 0.348 of 0.340 s, the steps after it too short to time apart)');
  });
});
