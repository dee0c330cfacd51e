import { EnvConfigError } from '../errors';
import { readJsonl } from '../jsonl';
import type { MathProblem } from './generator';

/** MetaMathQA's answer: the text after the last "The answer is:". */
export function extractMetaMathAnswer(response: string): string | null {
  const match = /The answer is:\s*(.*?)\s*$/s.exec(response);
  return match && match[1] !== '' ? match[1] : null;
}

/** RAGEN's comparison: lowercase, all whitespace removed, then exact equality. */
export function normalizeMathAnswer(answer: string): string {
  return answer.toLowerCase().replace(/\s+/g, '');
}

// A run makes one env per rollout slot; they share the parsed problems.
const parsed = new WeakMap<unknown[], MathProblem[]>();

/** The problems of a MetaMathQA JSONL file, rows without a final answer left out. */
export function loadProblems(path: string): MathProblem[] {
  const label = 'metamathqa';
  const rows = readJsonl(path, label);
  const cached = parsed.get(rows);
  if (cached) return cached;
  const problems: MathProblem[] = [];
  rows.forEach((row, i) => {
    const record = row as { query?: unknown; response?: unknown };
    if (typeof record !== 'object' || record === null || typeof record.query !== 'string' || typeof record.response !== 'string') {
      throw new EnvConfigError(`${label}: ${path} row ${i + 1} needs string fields "query" and "response"`);
    }
    const answer = extractMetaMathAnswer(record.response);
    if (answer !== null) problems.push({ question: record.query, answer });
  });
  if (problems.length === 0) throw new EnvConfigError(`${label}: ${path} has no row whose response ends with "The answer is: ..."`);
  parsed.set(rows, problems);
  return problems;
}
