// A custom env's optional solver methods as the trainer and `turnlab check` call them: each is
// passed through the guard (turn shaping reads distanceToGoal, the expert warm start planTurn)
// and checked, against the solver's plan where one proves what the value must be.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCustomEnvSpec, readCustomEnvSpec } from '../../trainer-core/envs/custom-loader';
import { checkEnv } from '../../trainer-core/envs/env-check';
import { createEnv } from '../../trainer-core/envs/options';
import { solverDistance } from '../../trainer-core/envs/solver-distance';

const module = resolve(__dirname, 'fixtures/solver-methods.ts');
const label = `custom environment ${module}`;

async function problems(fault: string): Promise<string[]> {
  // Unguarded, as `turnlab check` reads it: check reports each bad value and plays on.
  const spec = await readCustomEnvSpec(module);
  return checkEnv(spec, { fault }, label, { seeds: [0, 1], maxSteps: 6, actionBudget: 6 }).problems.map((p) => p.slice(label.length + 2));
}

describe("a custom env's solver methods", () => {
  it("reads the env's own distanceToGoal and planTurn through the guard, checked as every other call", async () => {
    const spec = await loadCustomEnvSpec(module);
    const far = createEnv(spec, { fault: 'distance-far' });
    far.reset(0);
    // Not the length of solve()'s plan (3): the env's own answer.
    expect(solverDistance(far)).toBe(5);
    const nan = createEnv(spec, { fault: 'distance-nan' });
    nan.reset(4);
    expect(() => solverDistance(nan)).toThrow(`${label}: distanceToGoal() returned number NaN; expected null or a number of moves, 0 or more (episode seed 4)`);
    const planned = createEnv(spec, { fault: 'plan-turn-text' });
    planned.reset(0);
    expect(() => planned.planTurn!({ turnsLeft: 3, actionsLeft: 3, maxActionsPerTurn: 1 })).toThrow(
      /planTurn\(\{"turnsLeft":3,"actionsLeft":3,"maxActionsPerTurn":1\}\) returned string "Walk"; expected null or a list of action strings/,
    );
  });

  it('turnlab check finds a distance the solver contradicts, and none where it agrees', async () => {
    expect(await problems('none')).toEqual([]);
    expect(await problems('distance-far')).toEqual([
      "distanceToGoal(): returned 5 after 0 of the 3 actions of solve()'s plan, which reaches the goal in 3 more; the distance is the fewest moves left, so at most 3 (episode seed 0)",
    ]);
    expect(await problems('distance-at-goal')).toEqual([
      "distanceToGoal(): returned 1 at the goal (after 3 of the 3 actions of solve()'s plan, which reaches the goal); expected 0 (episode seed 0)",
    ]);
    // A bad kind of value is said once, by the shape check.
    expect(await problems('distance-nan')).toEqual(['distanceToGoal() returned number NaN; expected null or a number of moves, 0 or more (episode seed 0)']);
  });

  it('says an async step returned a Promise, and a plan that succeeds where done never comes', async () => {
    expect(await problems('async-step')).toEqual([
      'step("Walk") returned a Promise (env methods must be synchronous); expected the result itself (no async; load data with a top-level await in the module instead) (episode seed 0)',
      "solve(): its plan of 3 actions left the episode unfinished; a plan must reach success (or solve() returns null) (episode seed 0)",
    ]);
    expect(await problems('never-done')).toEqual([
      'solve(): its plan of 3 actions reached success, but step() never returned done: true; a plan must reach success (or solve() returns null) (episode seed 0)',
    ]);
  });
});
