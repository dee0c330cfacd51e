import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractMetaMathAnswer, MathQAEnv, mathqaOptionsSchema, normalizeMathAnswer } from '../../trainer-core/envs/mathqa';

const make = (options: Record<string, unknown> = {}) => new MathQAEnv(mathqaOptionsSchema.parse(options));
const fixture = resolve(__dirname, 'fixtures/metamathqa.jsonl');

describe('MathQA', () => {
  it('extracts the MetaMathQA answer and compares after lowercasing and removing spaces', () => {
    expect(extractMetaMathAnswer('So 3 + 4 = 7.\nThe answer is: 7')).toBe('7');
    expect(extractMetaMathAnswer('no answer')).toBeNull();
    expect(normalizeMathAnswer(' \\frac{1}{ 2 } X ')).toBe('\\frac{1}{2}x');
  });

  it('generates word problems per seed whose solver answer is rewarded 1', () => {
    const env = make();
    const questions = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      const question = env.reset(seed);
      expect(env.reset(seed)).toBe(question);
      questions.add(question);
      const [answer] = env.solve()!;
      expect(answer).toMatch(/^\d+$/);
      expect(env.step(` ${answer} `)).toMatchObject({ reward: 1, done: true, info: { success: true, actionIsValid: true } });
    }
    expect(questions.size).toBeGreaterThan(180);
  });

  it('gives one attempt by default; wrong answers score 0 and empty answers are invalid', () => {
    const env = make();
    env.reset(3);
    expect(env.step('')).toMatchObject({ reward: 0, done: false, info: { actionIsValid: false } });
    const last = env.step('-1');
    expect(last).toMatchObject({ reward: 0, done: true, info: { success: false, actionIsValid: true } });
    // With no attempt left it does not ask for another.
    expect(last.observation).toContain('Incorrect. No attempts left.');
    expect(env.renderState()).toMatchObject({ kind: 'text', fields: { attempts: 1 } });
  });

  it('halves the reward on each further attempt when several are allowed (RAGEN)', () => {
    const env = make({ max_attempts: 3 });
    env.reset(5);
    const [answer] = env.solve()!;
    const wrong = env.step('-1');
    expect(wrong).toMatchObject({ reward: 0, done: false });
    expect(wrong.observation).toContain('Incorrect. Please think again.');
    expect(env.step(answer)).toMatchObject({ reward: 0.5, done: true, info: { success: true } });
  });

  it('reads questions from a local JSONL file, skipping rows without an answer', () => {
    const env = make({ dataset_path: fixture });
    const seen = new Set<string>();
    for (let seed = 0; seed < 40; seed++) seen.add(env.reset(seed));
    expect([...seen].sort()).toEqual(['Simplify x/2 + x/2.', 'What is 2 + 3?']);
    const seed = Array.from({ length: 40 }, (_, s) => s).find((s) => env.reset(s) === 'Simplify x/2 + x/2.')!;
    env.reset(seed);
    expect(env.step(' x ')).toMatchObject({ reward: 1, info: { success: true } });
  });
});
