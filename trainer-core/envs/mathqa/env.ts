import { deriveSeed, Rng } from '../../rng';
import { invalidActionResult } from '../actions';
import type { Env, StateRender, StepResult } from '../types';
import { loadProblems, normalizeMathAnswer } from './dataset';
import { generateMathProblem, type MathProblem } from './generator';
import type { MathQAOptions } from './options';
import { mathStateRender, renderMathQuestion } from './render';

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
    // RAGEN's words while attempts are left; the last wrong answer says there are none.
    this.feedback = correct ? 'Correct!' : this.done ? 'Incorrect. No attempts left.' : 'Incorrect. Please think again.';
    return { observation: this.render(), reward, done: this.done, info: { success: correct, actionIsValid: true, actionIsEffective: true } };
  }

  render(): string {
    return renderMathQuestion(this.problem, this.feedback);
  }

  renderState(): StateRender {
    return mathStateRender(this.problem, this.feedback, this.attempts);
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
