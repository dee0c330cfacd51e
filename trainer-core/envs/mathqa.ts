import { z } from 'zod';
import { deriveSeed, Rng } from '../rng';
import { invalidActionResult } from './actions';
import { EnvConfigError } from './errors';
import { readJsonl } from './jsonl';
import { generateMathProblem, type MathProblem } from './mathqa-generator';
import type { Env, EnvSpec, StateRender, StepResult } from './types';

export const mathqaOptionsSchema = z
  .object({
    dataset_path: z
      .string()
      .optional()
      .describe('JSONL file in the MetaMathQA shape {"query", "response" ending "The answer is: ..."}; without it problems are generated'),
    max_attempts: z.number().int().min(1).default(1).describe('answers allowed per question; a correct answer on attempt k pays 1/2^(k-1)'),
  })
  .strict();
export type MathQAOptions = z.infer<typeof mathqaOptionsSchema>;

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

function loadProblems(path: string): MathProblem[] {
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

/** RAGEN's MetaMathQA env: a question per seed, the answer checked by normalized exact match. */
export class MathQAEnv implements Env {
  private problem: MathProblem = { question: '', answer: '' };
  private attempts = 0;
  private solved = false;
  private feedback = '';
  private readonly problems: MathProblem[] | null;

  constructor(readonly options: MathQAOptions) {
    this.problems = options.dataset_path ? loadProblems(options.dataset_path) : null;
  }

  reset(seed: number): string {
    const rng = new Rng(deriveSeed(seed, 'question'));
    this.problem = this.problems ? this.problems[rng.int(this.problems.length)] : generateMathProblem(rng);
    this.attempts = 0;
    this.solved = false;
    this.feedback = '';
    return this.render();
  }

  private get done(): boolean {
    return this.solved || this.attempts >= this.options.max_attempts;
  }

  step(action: string): StepResult {
    if (this.done) {
      return { observation: this.render(), reward: 0, done: true, info: { success: this.solved, actionIsValid: true, actionIsEffective: false } };
    }
    const given = normalizeMathAnswer(action);
    if (given === '') return invalidActionResult(this.render(), false);
    const correct = given === normalizeMathAnswer(this.problem.answer);
    const reward = correct ? 1 / 2 ** this.attempts : 0;
    this.attempts++;
    this.solved = correct;
    this.feedback = correct ? 'Correct!' : 'Incorrect. Please think again.';
    return { observation: this.render(), reward, done: this.done, info: { success: correct, actionIsValid: true, actionIsEffective: true } };
  }

  render(): string {
    return this.feedback ? `${this.problem.question}\n${this.feedback}` : this.problem.question;
  }

  renderState(): StateRender {
    return { kind: 'text', text: this.render(), fields: { question: this.problem.question, attempts: this.attempts } };
  }

  instructions(): string {
    return 'You are solving a math word problem. Answer with the final answer only, for example 42.';
  }

  legend(): string {
    return '';
  }

  actionNames(): null {
    return null;
  }

  solve(): string[] | null {
    return this.done ? null : [this.problem.answer];
  }

  optimalSuccessProbability(actionBudget: number): number {
    return !this.done && actionBudget >= 1 ? 1 : 0;
  }
}

export const mathqaSpec: EnvSpec<MathQAOptions> = {
  type: 'metamathqa',
  description: 'MathQA: a math question per seed (MetaMathQA JSONL or generated word problems), exact-match answer',
  optionsSchema: mathqaOptionsSchema,
  create: (options) => new MathQAEnv(options),
  multiAction: false,
};
