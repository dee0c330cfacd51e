import { describe, expect, it } from 'vitest';
import { displayStatus, runProgress } from '../../renderer/src/run/progress';
import { progressOf } from '../../renderer/src/stores/run-table';

const queued = (config: Record<string, unknown>, iterations: number | null = null) => ({ status: 'queued' as const, config, iterations });

describe('the status of a run waiting for its trainer', () => {
  it('reads warming up when the policy trains before RL: on demonstrations or on its own solved episodes', () => {
    expect(displayStatus(queued({ warm_start: { mode: 'expert', steps: 100 } }))).toBe('warming up');
    expect(displayStatus(queued({ warm_start: { mode: 'none', steps: 0 }, expert_iteration: { rounds: 3 } }))).toBe('warming up');
    expect(displayStatus(queued({ warm_start: { mode: 'none', steps: 0 }, expert_iteration: { rounds: 0 } }))).toBe('queued');
    expect(displayStatus(queued({ warm_start: { mode: 'expert', steps: 100 }, expert_iteration: { rounds: 3 } }, 4))).toBe('resuming');
  });
});

describe("a run's progress while it warms up", () => {
  const config = { trainer: { total_training_steps: 200 }, warm_start: { mode: 'expert' as const, steps: 2500 } };
  const progress = { phase: 'warm start' as const, step: 1000, steps: 2500, loss: 0.21, startedAt: 1_000_000, updatedAt: 1_000_000 + 600_000 };

  it("shows the warm start's step and loss, and the time left at its pace, instead of iteration 0", () => {
    const p = runProgress({ status: 'queued', config, iterations: null, warmStartProgress: progress }, {});
    expect(p).toMatchObject({ warmingUp: true, iteration: 1000, total: 2500, text: 'warm start step 1000 / 2500, loss 0.2100' });
    // 1000 steps in 10 minutes: 1500 more take 15.
    expect(p.secondsLeft).toBeCloseTo(900);
    expect(progressOf({ status: 'queued', config, iterations: null, warmStartProgress: progress })).toBeCloseTo(0.4);
    const begun = runProgress({ status: 'queued', config, iterations: null, warmStartProgress: { ...progress, step: 0, loss: null } }, {});
    expect(begun).toMatchObject({ text: 'warm start step 0 / 2500', secondsLeft: null });
    const rounds = { ...progress, phase: 'expert iteration' as const, step: 3, steps: 12, loss: 0.5 };
    expect(runProgress({ status: 'queued', config, iterations: null, warmStartProgress: rounds }, {})).toMatchObject({ text: 'expert iteration round 3 / 12, loss 0.5000', total: 12 });
  });

  it('shows the iterations once the run runs, or when it has stopped during the warm start', () => {
    for (const status of ['running', 'stopped'] as const) {
      const p = runProgress({ status, config, iterations: 3, warmStartProgress: { ...progress, step: 2500 } }, {});
      expect(p).toMatchObject({ warmingUp: false, iteration: 3, total: 200, text: 'iteration 3 / 200' });
      expect(progressOf({ status, config, iterations: 3, warmStartProgress: progress })).toBeCloseTo(3 / 200);
    }
    // Stopped before its first iteration: where the warm start got to.
    const warmOnly = runProgress({ status: 'stopped', config, iterations: null, warmStartProgress: progress }, {});
    expect(warmOnly).toMatchObject({ warmingUp: false, iteration: 1000, total: 2500, secondsLeft: null, text: 'warm start step 1000 / 2500, loss 0.2100 (stopped there)' });
    // A run stored before the trainer wrote any progress (or by an older TurnLab) reads as before.
    expect(runProgress({ status: 'queued', config, iterations: null, warmStartProgress: null }, {})).toMatchObject({ warmingUp: false, text: 'iteration 0 / 200' });
  });
});

describe("a running run's time left", () => {
  const config = { trainer: { total_training_steps: 20 } };
  /** A metric logged at each iteration at the given wall times (seconds). */
  const loggedAt = (seconds: Record<number, number>) => ({
    'train/success': Object.entries(seconds).map(([iteration, s]) => ({ iteration: Number(iteration), value: 0.5, wallTime: s * 1000 })),
  });

  it('goes by the pace of the recent iterations, validations in', () => {
    // 5 s an iteration, the validation at iteration 10 taking 4 s more: 10 iterations left.
    const series = loggedAt({ 1: 0, 2: 5, 3: 10, 4: 15, 5: 20, 6: 25, 7: 30, 8: 35, 9: 40, 10: 49 });
    const p = runProgress({ status: 'running', config, iterations: 10, warmStartProgress: null }, series);
    expect(p.secondsLeft).toBeCloseTo(10 * (49 / 9));
  });

  it('leaves out the pause of a run stopped and resumed, which is not its pace', () => {
    // Stopped after iteration 4, resumed an hour later.
    const series = loggedAt({ 1: 0, 2: 5, 3: 10, 4: 15, 5: 3615, 6: 3620 });
    const p = runProgress({ status: 'running', config, iterations: 6, warmStartProgress: null }, series);
    expect(p.secondsLeft).toBeCloseTo(14 * 5);
  });
});
