import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CountdownEnv, countdownOptionsSchema, parseExpression, scoreCountdown, solveCountdown } from '../../trainer-core/envs/countdown';

const make = (options: Record<string, unknown> = {}) => new CountdownEnv(countdownOptionsSchema.parse(options));

describe('Countdown scoring (RAGEN: 1 correct, 0.1 well-formed but wrong, 0 otherwise)', () => {
  it('scores answers', () => {
    const nums = [3, 17, 13];
    expect(scoreCountdown('17 - 13 + 3', nums, 7).reward).toBe(1);
    expect(scoreCountdown('(17 - 13) + 3', nums, 7).reward).toBe(1);
    expect(scoreCountdown('- 13 + 17 + 3', nums, 7).reward).toBe(1);
    expect(scoreCountdown('17 + 13 + 3', nums, 7).reward).toBe(0.1);
    expect(scoreCountdown('17 - 13', nums, 4).reward).toBe(0);
    expect(scoreCountdown('17 - 13 + 3 + 3', nums, 10).reward).toBe(0);
    expect(scoreCountdown('17 - 13 + 3 = 7', nums, 7).reward).toBe(0);
    expect(scoreCountdown('17 - 13 +', nums, 7).reward).toBe(0);
    expect(scoreCountdown('print(7)', nums, 7).reward).toBe(0);
    expect(scoreCountdown('17 / (13 - 13) + 3', [17, 13, 13, 3], 7).reward).toBe(0);
  });

  it('parses arithmetic with precedence and parentheses only', () => {
    expect(parseExpression('2 + 3 * 4')).toEqual({ ok: true, value: 14, numbers: [2, 3, 4] });
    expect(parseExpression('(2 + 3) * 4')).toMatchObject({ ok: true, value: 20 });
    expect(parseExpression('8 / 4 / 2')).toMatchObject({ ok: true, value: 1 });
    expect(parseExpression('2 ** 3')).toMatchObject({ ok: false });
    expect(parseExpression('(1 + 2')).toMatchObject({ ok: false });
  });
});

describe('Countdown env', () => {
  it('shows "Target: t, nums: [..]" and ends after one equation', () => {
    const env = make();
    expect(env.loadInstance({ target: 7, nums: [3, 17, 13] })).toBe('Target: 7, nums: [3, 17, 13]');
    expect(env.actionNames()).toBeNull();
    expect(env.step('  ')).toMatchObject({ reward: 0, done: false, info: { actionIsValid: false } });
    const result = env.step('17 - 13 + 3');
    expect(result).toMatchObject({ reward: 1, done: true, info: { success: true, actionIsValid: true, actionIsEffective: true } });
    expect(env.renderState()).toMatchObject({ kind: 'text', fields: { target: 7, nums: [3, 17, 13] } });
    env.loadInstance({ target: 7, nums: [3, 17, 13] });
    expect(env.step('3 + 17 + 13')).toMatchObject({ reward: 0.1, done: true, info: { success: false, wellFormed: true } });
  });

  it('generates 200 solvable instances; the solver answer scores 1 through step', () => {
    const env = make();
    const seen = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      const observation = env.reset(seed);
      expect(env.reset(seed)).toBe(observation);
      seen.add(observation);
      const match = /^Target: (\d+), nums: \[([\d, ]+)\]$/.exec(observation);
      expect(match).not.toBeNull();
      const nums = match![2].split(', ').map(Number);
      expect(nums.length).toBeGreaterThanOrEqual(3);
      expect(nums.length).toBeLessThanOrEqual(4);
      const answer = env.solve();
      expect(answer).not.toBeNull();
      expect(answer![0]).toMatch(/^-?\d+( [+-] \d+)+$/);
      // The numbers in the order given, so a policy imitating it copies them left to right.
      expect(answer![0].match(/\d+/g)!.map(Number)).toEqual(nums);
      const result = env.step(answer![0]);
      expect(result).toMatchObject({ reward: 1, done: true, info: { success: true } });
    }
    expect(seen.size).toBeGreaterThan(190);
  });

  it('solves with * and / when configured', () => {
    expect(solveCountdown([4, 6], 24, ['+', '-'])).toBeNull();
    const equation = solveCountdown([4, 6], 24, ['+', '-', '*', '/']);
    expect(scoreCountdown(equation!, [4, 6], 24).reward).toBe(1);
    const hard = solveCountdown([3, 3, 8, 8], 24, ['+', '-', '*', '/']);
    expect(scoreCountdown(hard!, [3, 3, 8, 8], 24).reward).toBe(1);
    const env = make({ operators: ['+', '-', '*', '/'] });
    for (let seed = 0; seed < 30; seed++) {
      env.reset(seed);
      expect(env.step(env.solve()![0]).reward).toBe(1);
    }
  });

  it('loads instances from a JSONL file, keeps the solvable ones and picks by seed modulo their count', () => {
    const env = make({ train_path: resolve(__dirname, 'fixtures/countdown.jsonl') });
    // [1, 2, 3] cannot make 98, so three instances remain.
    expect(env.reset(0)).toBe('Target: 24, nums: [10, 20, 6]');
    expect(env.reset(1)).toBe('Target: 7, nums: [3, 17, 13]');
    expect(env.reset(2)).toBe('Target: 10, nums: [5, 6, 1]');
    expect(env.reset(3)).toBe('Target: 24, nums: [10, 20, 6]');
    expect(() => make({ train_path: '/no/such/file.jsonl' })).toThrow(/data file not found/);
  });
});
