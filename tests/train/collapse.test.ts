import { describe, expect, it } from 'vitest';
import { collapseStarts, collapseWarning, initialCollapseState, stepCollapse, wellFormedShare } from '../../trainer-core/train/collapse';

describe('collapse detection', () => {
  it('detects a fall of the well-formed share (Bandit seed 1: valid, then invalid from iteration 2)', () => {
    const series = [1, 1, 0.97, 0.2, 0, 0, 0, 0];
    expect(collapseStarts(series)).toEqual([4]);
    // Measured: train/Bandit/action_is_valid of seed 1 at lr 1e-3, iterations 1-6.
    expect(collapseStarts([0.96875, 0, 0, 0, 0, 0])).toEqual([2]);
  });

  it('warns once per collapse episode, again after a recovery and a second collapse', () => {
    const series = [1, 1, 0, 0, 0, 1, 1, 1, 0, 0];
    expect(collapseStarts(series)).toEqual([3, 9]);
  });

  it('stays quiet on noise around a healthy level and on a run that never was well-formed', () => {
    const noisy = [0.9, 0.7, 0.95, 0.6, 0.9, 0.8, 1, 0.65, 0.9];
    expect(collapseStarts(noisy)).toEqual([]);
    expect(collapseStarts([0.1, 0.05, 0.2, 0, 0.1])).toEqual([]);
    expect(collapseStarts([0.3, 0.6, 0.9, 1, 1, 1])).toEqual([]);
  });

  it('names the metric, its value, the earlier level and what to try', () => {
    let state = initialCollapseState();
    let line = '';
    [1, 1, 0, 0].forEach((v, i) => {
      const step = stepCollapse(state, v);
      state = step.state;
      if (step.started) line = collapseWarning(step, i + 1);
    });
    expect(line).toContain('rollout/well_formed_share is 0.00, down from 1.00');
    expect(line).toContain('iteration 4');
    expect(line).toMatch(/lower actor lr/);
    expect(line).toMatch(/KL/);
    expect(line).toMatch(/fork from a checkpoint/);
  });

  it('reads the share from the per-tag valid-action metrics', () => {
    expect(wellFormedShare({ 'train/A/action_is_valid': 1, 'train/B/action_is_valid': 0.5, 'val/A/action_is_valid': 0 })).toBe(0.75);
    expect(wellFormedShare({ 'val/A/action_is_valid': 1 })).toBeNull();
  });
});
