// The server's verdict on a config (checkRunConfig) put beside the form's fields: each problem
// under the field that sets its key; the rest (keys no field sets, the file as a whole) together.
import type { ConfigProblemDto } from '../../../preload/contract';

export interface PlacedProblems<F extends string> {
  byField: Partial<Record<F, string>>;
  /** The problems no field owns. */
  rest: ConfigProblemDto[];
}

/** A problem away from its field, named by its key unless the message names it already. */
export function describeProblem(problem: ConfigProblemDto): string {
  const text = problem.key && !problem.message.includes(problem.key) ? `${problem.key}: ${problem.message}` : problem.message;
  return problem.line !== undefined ? `line ${problem.line}: ${text}` : text;
}

export function placeProblems<F extends string>(problems: readonly ConfigProblemDto[], keys: Record<F, string>): PlacedProblems<F> {
  const fieldOf = new Map(Object.entries(keys).map(([field, key]) => [key as string, field as F]));
  const placed: PlacedProblems<F> = { byField: {}, rest: [] };
  for (const problem of problems) {
    const field = fieldOf.get(problem.key);
    if (field === undefined) placed.rest.push(problem);
    else placed.byField[field] = placed.byField[field] ? `${placed.byField[field]}; ${problem.message}` : problem.message;
  }
  return placed;
}
