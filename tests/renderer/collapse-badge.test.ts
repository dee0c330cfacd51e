import { describe, expect, it } from 'vitest';
import { collapseBadge } from '../../renderer/src/run/collapse-badge';

const points = (values: number[]) => values.map((value, i) => ({ iteration: i + 1, value, wallTime: 1000 * (i + 1) }));

describe('collapse badge', () => {
  it('reads the latest share and the best one before it while the run is collapsed', () => {
    const badge = collapseBadge({ 'rollout/collapse': points([0, 0, 1]), 'rollout/well_formed_share': points([0.5, 0.97, 0]) });
    expect(badge?.text).toBe('collapsed: well-formed answers 0.00 (was 0.97)');
    expect(badge?.iteration).toBe(3);
  });

  it('shows nothing for a healthy run, a recovered one, or one that logs no collapse metric', () => {
    expect(collapseBadge({ 'rollout/collapse': points([0, 0]), 'rollout/well_formed_share': points([0.9, 0.95]) })).toBeNull();
    expect(collapseBadge({ 'rollout/collapse': points([1, 0]), 'rollout/well_formed_share': points([0.1, 0.9]) })).toBeNull();
    expect(collapseBadge({ 'train/bandit/success': points([1]) })).toBeNull();
  });
});
