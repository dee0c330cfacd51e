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
