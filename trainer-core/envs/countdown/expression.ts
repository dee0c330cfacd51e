/**
 * A small arithmetic parser for Countdown answers: integers, + - * /, unary signs and
 * parentheses. Nothing else is accepted, so an answer can never run code (RAGEN uses Python's
 * eval with builtins removed; this accepts the same arithmetic without that risk).
 */
export type ParsedExpression = { ok: true; value: number; numbers: number[] } | { ok: false; error: string };

export function parseExpression(text: string): ParsedExpression {
  const tokens = text.match(/\d+|[-+*/()]|\S/g) ?? [];
  let pos = 0;
  const numbers: number[] = [];

  const fail = (error: string): never => {
    throw new SyntaxError(error);
  };
  const expression = (): number => {
    let value = term();
    while (tokens[pos] === '+' || tokens[pos] === '-') {
      const op = tokens[pos++];
      const rhs = term();
      value = op === '+' ? value + rhs : value - rhs;
    }
    return value;
  };
  const term = (): number => {
    let value = factor();
    while (tokens[pos] === '*' || tokens[pos] === '/') {
      const op = tokens[pos++];
      const rhs = factor();
      if (op === '/' && rhs === 0) fail('division by zero');
      value = op === '*' ? value * rhs : value / rhs;
    }
    return value;
  };
  const factor = (): number => {
    const token = tokens[pos++];
    if (token === undefined) return fail('the expression ends too early');
    if (token === '+') return factor();
    if (token === '-') return -factor();
    if (token === '(') {
      const value = expression();
      if (tokens[pos++] !== ')') fail("a '(' is not closed");
      return value;
    }
    if (/^\d+$/.test(token)) {
      const n = Number(token);
      numbers.push(n);
      return n;
    }
    return fail(`unexpected '${token}'`);
  };

  try {
    if (tokens.length === 0) return { ok: false, error: 'empty expression' };
    const value = expression();
    if (pos < tokens.length) fail(`unexpected '${tokens[pos]}'`);
    return { ok: true, value, numbers };
  } catch (error) {
    if (error instanceof SyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}

export interface CountdownScore {
  reward: number;
  /** Parses, and uses every given number exactly once. */
  wellFormed: boolean;
  correct: boolean;
  value: number | null;
  reason: string;
}

/**
 * RAGEN's Countdown score: 1 when the expression uses each number exactly once and equals the
 * target, 0.1 when it uses the numbers right but misses the target, 0 otherwise.
 */
export function scoreCountdown(answer: string, nums: readonly number[], target: number): CountdownScore {
  const parsed = parseExpression(answer);
  if (!parsed.ok) return { reward: 0, wellFormed: false, correct: false, value: null, reason: parsed.error };
  const used = [...parsed.numbers].sort((a, b) => a - b).join(',');
  const given = [...nums].sort((a, b) => a - b).join(',');
  if (used !== given) {
    return { reward: 0, wellFormed: false, correct: false, value: parsed.value, reason: `uses [${parsed.numbers.join(', ')}], not each of [${nums.join(', ')}] once` };
  }
  if (Math.abs(parsed.value - target) < 1e-5) return { reward: 1, wellFormed: true, correct: true, value: parsed.value, reason: 'correct' };
  return { reward: 0.1, wellFormed: true, correct: false, value: parsed.value, reason: `equals ${formatValue(parsed.value)}, not ${target}` };
}

function formatValue(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(4).replace(/0+$/, '');
}
