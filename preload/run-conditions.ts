// Conditions on the Runs table's columns, as MLflow's `search_runs` filter reads them
// (`metric:val/Bandit/success >= 0.9 and algorithm.adv_estimator = grpo and status = completed`):
// a run's field, a config key or `metric:<name>` (its last value), an operator, a value; all must hold. Pure, so the CLI's
// `--where`, the Runs view's field and its address read a condition the same way.
import { isRunColumn, METRIC_COLUMN_PREFIX, RUN_CONDITION_FIELDS, RUN_CONDITION_LIST_FIELDS, RUN_CONDITION_OPS, RUN_STATUSES, type RunConditionDto, type RunConditionOp } from './contract';

/** Most conditions one query holds. */
export const RUN_CONDITIONS_MAX = 16;

/** The operators longest first, so `<=` is not read as `<` followed by `=5`. */
const OPS_LONGEST_FIRST = [...RUN_CONDITION_OPS].sort((a, b) => b.length - a.length);

const FORM = 'a condition is <config key or metric:name> <op> <value> with op one of = != < <= > >=, e.g. metric:val/Bandit/success>=0.9 or algorithm.adv_estimator=grpo';

const QUOTED = /^(["'])(.*)\1$/s;

/** `best_val_success` as the JSON and the table's sort keys spell it: `bestValSuccess`. */
export const camelOf = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** A value as typed: quoted is text, `true`/`false` a flag, a number a number, anything else text. */
function valueOf(text: string, condition: string): RunConditionDto['value'] {
  if (text === '') throw new RangeError(`'${condition}' has no value after its operator (${FORM})`);
  const quoted = QUOTED.exec(text);
  if (quoted) return quoted[2];
  if (text === 'true' || text === 'false') return text === 'true';
  const number = Number(text);
  return Number.isFinite(number) ? number : text;
}

/** The run fields that hold a number; `created_at` is milliseconds since 1970, typed as a date. */
const NUMBER_FIELDS: readonly string[] = ['id', 'seed', 'iterations', 'progress', 'best_val_success', 'created_at'];

/**
 * `created_at` as typed: a date (`2026-12-01`, midnight local time, as the table shows times), a
 * date and time (`2026-12-01T08:30`, local unless it says its zone) or milliseconds since 1970.
 */
function timeValue(text: string, op: RunConditionOp, condition: string): number {
  const unquoted = QUOTED.exec(text)?.[2] ?? text;
  const day = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/.exec(unquoted);
  const time = /^\d+$/.test(unquoted) ? Number(unquoted) : /^\d{4}-\d{2}-\d{2}$/.test(unquoted) ? new Date(Number(day![1]), Number(day![2]) - 1, Number(day![3])).getTime() : Date.parse(unquoted);
  if (!Number.isFinite(time)) throw new RangeError(`'${condition}': created_at compares with a date (2026-12-01), a date and time (2026-12-01T08:30) or milliseconds since 1970, not '${unquoted}'`);
  // A day or hour past its month's (2026-02-30, 2026-13-01) would roll over to another date unsaid.
  if (day && !sameCalendarDay(day, time, unquoted)) throw new RangeError(`'${condition}': ${unquoted} is no date of the calendar`);
  if ((op === '=' || op === '!=') && /^\d{4}-\d{2}-\d{2}$/.test(unquoted)) {
    const next = new Date(time);
    next.setDate(next.getDate() + 1);
    const pad = (n: number) => String(n).padStart(2, '0');
    const nextDay = `${next.getFullYear()}-${pad(next.getMonth() + 1)}-${pad(next.getDate())}`;
    throw new RangeError(`'${condition}': created_at ${op} a date compares to the millisecond of its midnight; for the runs of that day use created_at>=${unquoted} and created_at<${nextDay}`);
  }
  return time;
}

/** Whether the typed date's fields survive as the local time read; a time with its zone (Z, +02:00) is left to Date.parse. */
function sameCalendarDay(typed: RegExpExecArray, time: number, text: string): boolean {
  if (/(Z|[+-]\d{2}:?\d{2})$/.test(text)) return true;
  const d = new Date(time);
  return d.getFullYear() === Number(typed[1]) && d.getMonth() + 1 === Number(typed[2]) && d.getDate() === Number(typed[3]);
}

/** One condition (`lr<1e-4`, `metric:val/Bandit/success >= 0.9`); throws a RangeError that says what is wrong. */
export function parseRunCondition(text: string): RunConditionDto {
  const condition = text.trim();
  // The column ends at the first operator character: config keys and metric names hold none.
  const at = condition.search(/[=!<>]/);
  if (at <= 0) throw new RangeError(`'${condition}' has ${at === 0 ? 'no column before its operator' : 'no operator'} (${FORM})`);
  // `config:<key>` as --sort spells a config column; a field as the JSON names it (bestValSuccess).
  const typed = condition.slice(0, at).trim().replace(/^config:/, '');
  const column = (RUN_CONDITION_FIELDS as readonly string[]).find((f) => camelOf(f) === typed) ?? typed;
  // Python's `==` reads as `=`.
  const rest = condition.slice(at).replace(/^==/, '=');
  const op = OPS_LONGEST_FIRST.find((o) => rest.startsWith(o));
  const operator = /^[=!<>]+/.exec(rest)?.[0] ?? '';
  if (op === undefined || operator !== op) throw new RangeError(`'${condition}': '${operator}' is not an operator (${FORM})`);
  if (!isRunColumn(column)) throw new RangeError(`'${condition}': '${column}' is neither a dotted config key (algorithm.adv_estimator) nor metric:<name> (metric:val/Bandit/success)`);
  const valueText = rest.slice(op.length).trim();
  if (/^[=!<>]/.test(valueText)) throw new RangeError(`'${condition}': its value '${valueText}' begins with an operator (${FORM})`);
  // Unquoted, a value holding another condition is a second condition joined by something other
  // than `and` (`status!=completed or name=child`): read as one value it would select the wrong
  // runs, and `delete --where` would delete them.
  if (!QUOTED.test(valueText)) {
    if (/(^|\s)or(\s|$)|\|\|/i.test(valueText)) throw new RangeError(`'${condition}': conditions join with 'and' only, all of them holding; for runs matching either of two, run the query once for each (a value that holds ' or ' goes in quotes: name="rock or roll")`);
    if (/\s(and|&&)$/i.test(valueText)) throw new RangeError(`'${condition}' ends with '${/(and|&&)$/i.exec(valueText)![1]}' and no condition after it`);
    if (/[=!<>]/.test(valueText)) throw new RangeError(`'${condition}': its value '${valueText}' holds an operator; join conditions with 'and', or quote a value that holds one (name="a=b")`);
  }
  const parsed = { column, op: op as RunConditionOp, value: column === 'created_at' && valueText !== '' ? timeValue(valueText, op as RunConditionOp, condition) : valueOf(valueText, condition) };
  const problem = conditionProblem(parsed);
  if (problem !== null) throw new RangeError(`'${condition}': ${problem}`);
  return parsed;
}

/** What is wrong with a condition whose parts each read (an order on a flag or a list), or null; the API checks conditions sent as data by it too. */
export function conditionProblem(condition: RunConditionDto): string | null {
  const ordered = condition.op !== '=' && condition.op !== '!=';
  if (ordered && typeof condition.value === 'boolean') return 'true and false compare with = or != only';
  // A metric's last value is a number: compared with text it would match no run, silently.
  if (condition.column.startsWith(METRIC_COLUMN_PREFIX) && typeof condition.value !== 'number') {
    return `${condition.column} is a number (the metric's last value); compare it with a number, not ${JSON.stringify(condition.value)}`;
  }
  if (NUMBER_FIELDS.includes(condition.column) && typeof condition.value !== 'number') {
    const what = condition.column === 'progress' ? "the share of its iterations a run has done, 0 to 1" : condition.column === 'created_at' ? 'a time, milliseconds since 1970' : 'a number';
    return `${condition.column} is ${what}; compare it with a number, not ${JSON.stringify(condition.value)}`;
  }
  // A status no run can have would match nothing, silently (`status=done`, `status=finished`).
  if (condition.column === 'status' && !ordered && !(RUN_STATUSES as readonly string[]).includes(String(condition.value))) {
    return `${JSON.stringify(condition.value)} is not a status; a run's status is one of ${RUN_STATUSES.join(', ')}`;
  }
  if (ordered && RUN_CONDITION_LIST_FIELDS.includes(condition.column)) {
    return `${condition.column} is a list of the run's ${condition.column === 'env' ? 'env tags' : 'tags'}; it compares with = (one of them is) or != (none is) only`;
  }
  return null;
}

/**
 * Conditions joined by `and` (any case), as MLflow joins them; an `and` inside quotes is part of
 * the value. Empty text is no condition.
 */
export function parseRunConditions(text: string): RunConditionDto[] {
  const parts: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (quote !== null) {
      if (char === quote) quote = null;
      current += char;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    // `&&` as a shell or JavaScript user writes `and`.
    const joiner = /^\s+and\s+|^\s*&&\s*/i.exec(text.slice(i));
    if (joiner) {
      parts.push(current);
      current = '';
      i += joiner[0].length - 1;
      continue;
    }
    current += char;
  }
  parts.push(current);
  const conditions = parts.map((part) => part.trim()).filter((part) => part !== '').map(parseRunCondition);
  if (conditions.length > RUN_CONDITIONS_MAX) throw new RangeError(`at most ${RUN_CONDITIONS_MAX} conditions, not ${conditions.length}`);
  return conditions;
}

/** A condition as parseRunCondition reads it back: text that would read as another type is quoted. */
export function formatRunCondition(condition: RunConditionDto): string {
  const { value } = condition;
  const plain = typeof value !== 'string' || (value !== '' && value === value.trim() && !/\s+and\s+|^["']|[=!<>]|&&|\|\||(^|\s)or(\s|$)/i.test(value) && valueOf(value, '') === value);
  const text = plain ? String(value) : `"${value}"`;
  return `${condition.column}${condition.op}${text}`;
}

export function formatRunConditions(conditions: readonly RunConditionDto[]): string {
  return conditions.map(formatRunCondition).join(' and ');
}
