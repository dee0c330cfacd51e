import type { Rng } from '../rng';
import { EnvConfigError } from './errors';

export type CountdownOperator = '+' | '-' | '*' | '/';
export const COUNTDOWN_OPERATORS: readonly CountdownOperator[] = ['+', '-', '*', '/'];

interface Term {
  value: number;
  text: string;
  /** Whether the text is a bare number or product, so it needs no parentheses under * and /. */
  atomic: boolean;
}

/**
 * An expression using every number exactly once that equals `target`, by exhaustive search, or
 * null when none exists. With only + and - it tries every sign pattern (what RAGEN's
 * has_solution checks); with * or / it combines pairs recursively over all orders.
 */
export function solveCountdown(nums: readonly number[], target: number, operators: readonly CountdownOperator[]): string | null {
  if (nums.length === 0) return null;
  if (operators.includes('+') && operators.every((op) => op === '+' || op === '-')) {
    return solveWithSigns(nums, target, operators.includes('-'));
  }
  const found = combine(
    nums.map((n) => ({ value: n, text: String(n), atomic: true })),
    target,
    operators,
  );
  return found?.text ?? null;
}

function solveWithSigns(nums: readonly number[], target: number, allowMinus: boolean): string | null {
  const patterns = allowMinus ? 1 << nums.length : 1;
  for (let mask = 0; mask < patterns; mask++) {
    let sum = 0;
    nums.forEach((n, i) => (sum += mask & (1 << i) ? -n : n));
    if (sum !== target) continue;
    // The numbers in the order given, each with its sign (-4 + 12 + 3 for [4, 12, 3]): a policy
    // that imitates it copies the numbers left to right and has only the signs to choose, where
    // reordering would make every copied number depend on the signs decided before it.
    return nums.map((n, i) => `${i === 0 ? (mask & 1 ? '-' : '') : mask & (1 << i) ? '- ' : '+ '}${n}`).join(' ');
  }
  return null;
}

function combine(terms: Term[], target: number, operators: readonly CountdownOperator[]): Term | null {
  if (terms.length === 1) return Math.abs(terms[0].value - target) < 1e-9 ? terms[0] : null;
  for (let i = 0; i < terms.length; i++) {
    for (let j = 0; j < terms.length; j++) {
      if (i === j) continue;
      const rest = terms.filter((_, k) => k !== i && k !== j);
      for (const op of operators) {
        // + and * are commutative: trying (a, b) is enough, skip (b, a).
        if ((op === '+' || op === '*') && j < i) continue;
        const joined = apply(terms[i], terms[j], op);
        if (joined === null) continue;
        const found = combine([...rest, joined], target, operators);
        if (found) return found;
      }
    }
  }
  return null;
}

function apply(a: Term, b: Term, op: CountdownOperator): Term | null {
  const wrap = (t: Term) => (t.atomic ? t.text : `(${t.text})`);
  switch (op) {
    case '+':
      return { value: a.value + b.value, text: `${a.text} + ${b.text}`, atomic: false };
    case '-':
      return { value: a.value - b.value, text: `${a.text} - ${wrap(b)}`, atomic: false };
    case '*':
      return { value: a.value * b.value, text: `${wrap(a)} * ${wrap(b)}`, atomic: true };
    case '/':
      if (b.value === 0) return null;
      return { value: a.value / b.value, text: `${wrap(a)} / ${/^\d+$/.test(b.text) ? b.text : `(${b.text})`}`, atomic: true };
  }
}

export interface CountdownInstance {
  target: number;
  nums: number[];
}

export interface CountdownGeneration {
  minNumbers: number;
  maxNumbers: number;
  maxNumber: number;
  maxTarget: number;
  operators: readonly CountdownOperator[];
}

/**
 * A solvable instance: draw the numbers, combine them in a random order with random allowed
 * operators, and keep the result as target when it is a whole number in [1, maxTarget].
 */
export function generateCountdown(options: CountdownGeneration, rng: Rng): CountdownInstance {
  for (let attempt = 0; attempt < MAX_GENERATION_ATTEMPTS; attempt++) {
    const count = rng.intBetween(options.minNumbers, options.maxNumbers);
    const nums = Array.from({ length: count }, () => rng.intBetween(1, options.maxNumber));
    const pool = nums.slice();
    while (pool.length > 1) {
      const a = pool.splice(rng.int(pool.length), 1)[0];
      const b = pool.splice(rng.int(pool.length), 1)[0];
      const op = rng.choice(options.operators);
      pool.push(op === '+' ? a + b : op === '-' ? a - b : op === '*' ? a * b : b === 0 ? NaN : a / b);
    }
    const target = pool[0];
    if (Number.isInteger(target) && target >= 1 && target <= options.maxTarget) return { target, nums };
  }
  throw new EnvConfigError(
    `countdown: no instance with a target in [1, ${options.maxTarget}] after ${MAX_GENERATION_ATTEMPTS} tries with operators ${options.operators.join(' ')}; allow more operators or a larger max_target`,
  );
}

const MAX_GENERATION_ATTEMPTS = 100_000;
