import type { Env } from './types';

/** Whether the env can say how far its goal is (`distanceToGoal`, or a `solve` to count). */
export function hasSolverDistance(env: Env): boolean {
  return typeof env.distanceToGoal === 'function' || typeof env.solve === 'function';
}

/** Moves from the current state to the goal by the env's solver; null when it finds no way. */
export function solverDistance(env: Env): number | null {
  if (typeof env.distanceToGoal === 'function') return env.distanceToGoal();
  if (typeof env.solve === 'function') return env.solve()?.length ?? null;
  throw new Error('this environment has no solver (neither distanceToGoal nor solve)');
}
