import { describe, expect, it } from 'vitest';
import { displayStatus } from '../../renderer/src/run/progress';

const queued = (config: Record<string, unknown>, iterations: number | null = null) => ({ status: 'queued' as const, config, iterations });

describe('the status of a run waiting for its trainer', () => {
  it('reads warming up when the policy trains before RL: on demonstrations or on its own solved episodes', () => {
    expect(displayStatus(queued({ warm_start: { mode: 'expert', steps: 100 } }))).toBe('warming up');
    expect(displayStatus(queued({ warm_start: { mode: 'none', steps: 0 }, expert_iteration: { rounds: 3 } }))).toBe('warming up');
    expect(displayStatus(queued({ warm_start: { mode: 'none', steps: 0 }, expert_iteration: { rounds: 0 } }))).toBe('queued');
    expect(displayStatus(queued({ warm_start: { mode: 'expert', steps: 100 }, expert_iteration: { rounds: 3 } }, 4))).toBe('resuming');
  });
});
