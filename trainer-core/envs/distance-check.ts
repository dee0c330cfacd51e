/**
 * `turnlab check`'s test of `distanceToGoal()` against the solver: turn shaping pays the change of
 * the distance, so a distance that disagrees with a plan known to reach the goal shapes every
 * episode wrongly and silently. A plan need not be the shortest, so only what it proves is
 * checked: the goal is at most its remaining length away, and at 0 exactly where it succeeded.
 */

/** A problem with `distance`, measured `left` actions of a succeeding plan before its end; null when it fits. */
export function distanceProblem(distance: unknown, left: number, planLength: number, atGoal: boolean): string | null {
  // A value of the wrong kind is the shape check's to report, once.
  if (distance !== null && !(typeof distance === 'number' && Number.isFinite(distance) && distance >= 0)) return null;
  const where = `after ${planLength - left} of the ${planLength} actions of solve()'s plan, which reaches the goal`;
  if (atGoal) return distance === 0 ? null : `distanceToGoal(): returned ${String(distance)} at the goal (${where}); expected 0`;
  if (distance === null) return `distanceToGoal(): returned null (no way to the goal) ${where} in ${left} more`;
  if (distance > left) return `distanceToGoal(): returned ${distance} ${where} in ${left} more; the distance is the fewest moves left, so at most ${left}`;
  if (distance === 0) return `distanceToGoal(): returned 0 ${where} in ${left} more; 0 means the goal is reached`;
  return null;
}
