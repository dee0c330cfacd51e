import type { StateRender } from '../types';
import type { MathProblem } from './generator';

/** The question as the model reads it, with the verdict on its last answer once there is one. */
export function renderMathQuestion(problem: MathProblem, feedback: string): string {
  return feedback ? `${problem.question}\n${feedback}` : problem.question;
}

/** The text, and question and attempts so far as fields for the replay view. */
export function mathStateRender(problem: MathProblem, feedback: string, attempts: number): StateRender {
  return { kind: 'text', text: renderMathQuestion(problem, feedback), fields: { question: problem.question, attempts } };
}
