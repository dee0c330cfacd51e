import { z } from 'zod';
import { formatPath, type ConfigIssue } from './errors';
import { foreignValueAdvice, unknownKeyMessage } from './foreign-keys';
import { closestKey, keySuggestion, objectKeys, schemaAt } from './schema-walk';

/**
 * Python's and Hydra's spellings of a value where a typed one was wanted: `None` is YAML's null,
 * and `a,b` is Hydra's multirun sweep, which TurnLab runs as `turnlab sweep --grid`.
 */
function typedValueHint(path: ReadonlyArray<string | number>, actual: unknown): string {
  if (typeof actual !== 'string') return '';
  if (/^none$/i.test(actual.trim())) return ' (YAML writes no value as null)';
  // `[*]` and `[-]` are YAML syntax, so the override fell back to text.
  if (/^\[.*\]$/.test(actual.trim())) return ' (YAML could not read it as a list: quote items such as * or -, e.g. \'["*", "-"]\')';
  if (actual.includes(',') && !actual.trim().startsWith('[')) return `; several values to try are a sweep: turnlab sweep CONFIG --grid ${formatPath(path)}=${actual}`;
  return '';
}

/**
 * The issues worth saying: of two bounds one value breaks on the same side (an integer's safe
 * range and the key's own limit: `1e308` is past both), only the tighter, which is the one to fix.
 */
export function tightestBoundIssues(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const key = (issue: z.core.$ZodIssue) => `${issue.code}\u0000${issue.path.map(String).join('\u0000')}`;
  const tightest = new Map<string, number>();
  for (const issue of issues) {
    if (issue.code !== 'too_big' && issue.code !== 'too_small') continue;
    const bound = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum);
    const seen = tightest.get(key(issue));
    if (seen === undefined || (issue.code === 'too_big' ? bound < seen : bound > seen)) tightest.set(key(issue), bound);
  }
  const said = new Set<string>();
  return issues.filter((issue) => {
    if (issue.code !== 'too_big' && issue.code !== 'too_small') return true;
    const k = key(issue);
    if (said.has(k) || Number(issue.code === 'too_big' ? issue.maximum : issue.minimum) !== tightest.get(k)) return false;
    said.add(k);
    return true;
  });
}

/** Turns one zod issue into messages that name the full key path, what was expected and what was found. */
export function describeZodIssue(
  issue: z.core.$ZodIssue,
  root: unknown,
  schema: z.ZodType,
  prefix: ReadonlyArray<string | number> = [],
): ConfigIssue[] {
  const local = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
  const path = [...prefix, ...local];
  const where = `\`${formatPath(path)}\``;
  const actual = valueAt(root, local);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const level = schemaAt(schema, local) ?? schema;
      const valid = objectKeys(level) ?? [];
      return issue.keys.map((key) => {
        const hint = keySuggestion(level, key, valid);
        return {
          path: [...path, key],
          message: unknownKeyMessage([...path, key], hint),
        };
      });
    }
    case 'invalid_type': {
      const target = schemaAt(schema, local);
      const expected = issue.expected === 'number' && target instanceof z.ZodNumber && target.isInt ? 'int' : issue.expected;
      if (actual === undefined) return [{ path, message: `${where} is missing; it must be ${expectedText(expected)}` }];
      return [{ path, message: `${where} must be ${expectedText(expected)}, got ${describeValue(actual)}${typedValueHint(path, actual)}` }];
    }
    case 'invalid_value': {
      const options = issue.values.map(String);
      const advice = foreignValueAdvice(path, actual);
      if (advice !== undefined) return [{ path, message: `${where} must be one of ${options.join(' | ')}, got ${describeValue(actual)}: ${advice}` }];
      const hint = typeof actual === 'string' ? closestKey(actual, options) : undefined;
      return [
        {
          path,
          message:
            `${where} must be one of ${options.join(' | ')}, got ${describeValue(actual)}` +
            (hint !== undefined ? `; did you mean \`${hint}\`?` : ''),
        },
      ];
    }
    case 'too_small':
    case 'too_big': {
      const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
      const inclusive = issue.inclusive !== false;
      if (issue.origin === 'array') {
        const what = issue.code === 'too_small' ? 'at least' : 'at most';
        return [{ path, message: `${where} must have ${what} ${String(bound)} item(s), got ${describeValue(actual)}` }];
      }
      if (issue.origin === 'string') return [{ path, message: `${where} must not be empty` }];
      const op = issue.code === 'too_small' ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<';
      const advice = foreignValueAdvice(path, actual);
      return [{ path, message: `${where} must be ${op} ${String(bound)}, got ${describeValue(actual)}${advice !== undefined ? `: ${advice}` : ''}` }];
    }
    case 'invalid_union': {
      // Each alternative's own complaint at this key says what it takes (`true or false`, "corner").
      const choices: string[] = [];
      const literals: string[] = [];
      for (const branch of issue.errors) {
        for (const inner of branch) {
          if (inner.path.length > 0) continue;
          if (inner.code === 'invalid_type') choices.push(...(inner.expected === 'boolean' ? ['true', 'false'] : [expectedText(inner.expected)]));
          if (inner.code === 'invalid_value') {
            choices.push(...inner.values.map((v) => JSON.stringify(v)));
            literals.push(...inner.values.filter((v): v is string => typeof v === 'string'));
          }
        }
      }
      if (choices.length === 0) return [{ path, message: `${where}: ${issue.message}` }];
      const hint = typeof actual === 'string' ? closestKey(actual, literals) : undefined;
      return [{ path, message: `${where} must be one of ${[...new Set(choices)].join(' | ')}, got ${describeValue(actual)}` + (hint !== undefined ? `; did you mean \`${hint}\`?` : '') }];
    }
    default:
      return [{ path, message: `${where}: ${issue.message}` }];
  }
}

function expectedText(expected: string): string {
  const names: Record<string, string> = {
    number: 'a number',
    int: 'an integer',
    string: 'a string',
    boolean: 'true or false',
    object: 'a map of keys',
    record: 'a map of keys',
    array: 'a list',
    tuple: 'a list',
    null: 'null',
  };
  return names[expected] ?? expected;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `a list (${JSON.stringify(value)})`;
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return String(value);
}

function valueAt(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

