/**
 * What each Env method must return, as checks that name the offending field. Shared by the
 * guard that wraps custom environments during training and by `turnlab check`, so both report
 * a bad value the same way.
 */
import type { Env } from './types';

export interface ShapeProblem {
  /** Dotted path inside the returned value, '' for the value itself. */
  field: string;
  value: unknown;
  expected: string;
}

type Check = (value: unknown) => ShapeProblem[];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function field(path: string, value: unknown, ok: boolean, expected: string): ShapeProblem[] {
  return ok ? [] : [{ field: path, value, expected }];
}

const text = (expected: string): Check => (v) => field('', v, typeof v === 'string', expected);

/** Past this a few turns' rewards can add up to Infinity (1e308 each did), which the estimators refuse. */
const MAX_REWARD = 1e12;

/** Where `info` holds a number JSON cannot write (NaN, ±Infinity), which the store would keep as null. */
function nonFiniteInInfo(value: unknown, path: string, depth = 0): ShapeProblem[] {
  if (typeof value === 'number') return field(path, value, Number.isFinite(value), "a finite number (JSON has no NaN or Infinity, so the store would keep null: leave the field out, or write it as a string such as 'NaN')");
  if (depth >= 8 || typeof value !== 'object' || value === null) return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return entries.flatMap(([key, v]) => nonFiniteInInfo(v, `${path}.${key}`, depth + 1)).slice(0, 1);
}

function stepResult(v: unknown): ShapeProblem[] {
  if (!isObject(v)) return field('', v, false, '{ observation, reward, done, info }');
  const info = v.info;
  const problems = [
    ...field('observation', v.observation, typeof v.observation === 'string', 'a string'),
    ...(typeof v.reward === 'number' && Number.isFinite(v.reward)
      ? field('reward', v.reward, Math.abs(v.reward) <= MAX_REWARD, "a reward of at most 1e12 either way (an episode's sum of larger ones can overflow to Infinity: scale them down)")
      : field('reward', v.reward, false, 'a finite number')),
    ...field('done', v.done, typeof v.done === 'boolean', 'true or false'),
  ];
  if (!isObject(info)) return [...problems, ...field('info', info, false, '{ success, actionIsValid, actionIsEffective }')];
  for (const flag of ['success', 'actionIsValid', 'actionIsEffective']) {
    problems.push(...field(`info.${flag}`, info[flag], typeof info[flag] === 'boolean', 'true or false'));
  }
  // An env's own fields are stored as JSON with its turn: one NaN there is a silent null.
  return [...problems, ...nonFiniteInInfo(info, 'info')];
}

const isCell = (c: unknown) => Array.isArray(c) && c.length === 2 && c.every((n) => Number.isInteger(n));

function stateRender(v: unknown): ShapeProblem[] {
  const expected = "{ kind: 'text', text } or { kind: 'grid', rows, player, boxes, targets }";
  if (!isObject(v)) return field('', v, false, expected);
  if (v.kind === 'text') return field('text', v.text, typeof v.text === 'string', 'a string');
  if (v.kind !== 'grid') return field('kind', v.kind, false, "'text' or 'grid'");
  return [
    ...field('rows', v.rows, Array.isArray(v.rows) && v.rows.every((row) => Array.isArray(row)), 'a list of rows of cell names'),
    ...field('player', v.player, v.player === null || isCell(v.player), 'null or [row, col]'),
    ...field('boxes', v.boxes, Array.isArray(v.boxes) && v.boxes.every(isCell), 'a list of [row, col]'),
    ...field('targets', v.targets, Array.isArray(v.targets) && v.targets.every(isCell), 'a list of [row, col]'),
  ];
}

const actionList: Check = (v) => field('', v, v === null || (Array.isArray(v) && v.every((a) => typeof a === 'string')), 'null or a list of action strings');

/** The check for each method's return value; typed by Env so a method added there without a check does not compile. */
export const RESULT_CHECKS: Readonly<{ [Method in keyof Env]-?: Check }> = {
  reset: text('a string (the first observation)'),
  step: stepResult,
  render: text('a string'),
  renderState: stateRender,
  instructions: text('a string'),
  legend: text("a string ('' when there is none)"),
  actionNames: (v) =>
    field('', v, v === null || (Array.isArray(v) && v.length > 0 && v.every((n) => typeof n === 'string' && n !== '')), 'null or a non-empty list of strings'),
  solve: actionList,
  planTurn: actionList,
  optimalSuccessProbability: (v) => field('', v, typeof v === 'number' && v >= 0 && v <= 1, 'a probability between 0 and 1'),
  distanceToGoal: (v) => field('', v, v === null || (typeof v === 'number' && Number.isFinite(v) && v >= 0), 'null or a number of moves, 0 or more'),
};

/**
 * The problems of what `method` returned. An async method's Promise is one problem, not one per
 * field of the Promise object (which has none of the fields a step result needs).
 */
export function resultProblems(method: keyof Env, value: unknown): ShapeProblem[] {
  if (value instanceof Promise) return [{ field: '', value, expected: 'the result itself (no async; load data with a top-level await in the module instead)' }];
  return RESULT_CHECKS[method](value);
}

/** A short description of a value for error messages: its type and a clipped JSON form. */
export function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'number') return `number ${String(value)}`;
  if (value instanceof Promise) return 'a Promise (env methods must be synchronous)';
  let body: string;
  try {
    body = JSON.stringify(value) ?? String(value);
  } catch {
    body = String(value);
  }
  if (body.length > 80) body = `${body.slice(0, 77)}...`;
  const kind = Array.isArray(value) ? 'array' : typeof value;
  return `${kind} ${body}`;
}

/** `reset(3) returned reward number NaN; expected a finite number`, without the module name. */
export function formatShapeProblem(call: string, problem: ShapeProblem): string {
  const what = problem.field ? `${problem.field} ${describe(problem.value)}` : describe(problem.value);
  return `${call} returned ${what}; expected ${problem.expected}`;
}
