import { EnvConfigError } from './errors';
import { formatShapeProblem, resultProblems } from './env-shapes';
import type { Env } from './types';

/**
 * A custom environment's method threw or returned a value of the wrong shape. The message is
 * one line naming the module, the call, the bad value (or the error) and the episode seed, so a
 * failed run says what to fix; `method` and `field` let `turnlab check` group problems.
 */
export class EnvModuleError extends EnvConfigError {
  constructor(
    /** One line per bad field (one for a throw); the message joins them. */
    readonly lines: string[],
    readonly method: string,
    readonly fields: string[],
  ) {
    super(lines.join('; '));
    this.name = 'EnvModuleError';
  }
}

type Method = keyof Env;

function showCall(method: string, args: readonly unknown[]): string {
  return `${method}(${args.map((a) => JSON.stringify(a)).join(', ')})`;
}

/**
 * Wraps an env so every call is checked where it happens: the one place custom-env calls of the
 * rollout, validation, warm start and `turnlab check` go through. Built-in envs are not wrapped.
 * With `report`, a badly shaped result is reported and returned as is (`turnlab check` goes on
 * to find more problems); without, it throws. A throw from the env always propagates.
 */
export function guardEnv(env: Env, label: string, report?: (problem: EnvModuleError) => void): Env {
  let seed: number | null = null;
  const call = (method: Method, args: unknown[]): unknown => {
    const shown = showCall(method, args);
    const where = seed === null ? 'before the first reset' : `episode seed ${seed}`;
    let value: unknown;
    try {
      value = (env[method] as (...a: unknown[]) => unknown).apply(env, args);
    } catch (error) {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new EnvModuleError([`${label}: ${shown} threw ${reason.replace(/\s*\n\s*/g, ' ')} (${where})`], method, ['threw']);
    }
    const problems = resultProblems(method, value);
    if (problems.length > 0) {
      const lines = problems.map((p) => `${label}: ${formatShapeProblem(shown, p)} (${where})`);
      const error = new EnvModuleError(lines, method, problems.map((p) => p.field));
      if (!report) throw error;
      report(error);
    }
    return value;
  };
  const guarded: Env = {
    reset: (s) => {
      seed = s;
      return call('reset', [s]) as string;
    },
    step: (action) => call('step', [action]) as ReturnType<Env['step']>,
    render: () => call('render', []) as string,
    renderState: () => call('renderState', []) as ReturnType<Env['renderState']>,
    instructions: () => call('instructions', []) as string,
    legend: () => call('legend', []) as string,
    actionNames: () => call('actionNames', []) as string[] | null,
  };
  // Optional methods stay absent when the env has none: callers test for them.
  if (typeof env.solve === 'function') guarded.solve = () => call('solve', []) as string[] | null;
  if (typeof env.planTurn === 'function') guarded.planTurn = (budget) => call('planTurn', [budget]) as string[] | null;
  // Turn shaping reads it: dropped here, the shaping would fall back on solve() or refuse the env.
  if (typeof env.distanceToGoal === 'function') guarded.distanceToGoal = () => call('distanceToGoal', []) as number | null;
  if (typeof env.optimalSuccessProbability === 'function') {
    guarded.optimalSuccessProbability = (budget) => call('optimalSuccessProbability', [budget]) as number;
  }
  return guarded;
}
