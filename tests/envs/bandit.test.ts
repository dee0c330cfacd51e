import { describe, expect, it } from 'vitest';
import { BanditEnv, banditRevSpec, banditSpec } from '../../trainer-core/envs/bandit';
import { createEnv } from '../../trainer-core/envs/options';

describe('Bandit', () => {
  it("has RAGEN's arms and payouts by default", () => {
    expect(banditSpec.optionsSchema.parse({})).toEqual({
      lo_arm_name: 'Phoenix',
      hi_arm_name: 'Dragon',
      lo_arm_score: 0.1,
      hi_arm_score: 1,
      hi_arm_loscore: 0,
      hi_arm_hiscore_prob: 0.25,
    });
  });

  it('shuffles the arm order in the observation per reset, the same for the same seed', () => {
    const env = createEnv(banditSpec);
    const orders = new Map<string, number>();
    for (let seed = 0; seed < 2000; seed++) {
      const observation = env.reset(seed);
      const key = /named (\w+) and (\w+)\./.exec(observation)!.slice(1).join(',');
      if (env.reset(seed) !== observation) orders.set('mismatch', 1);
      orders.set(key, (orders.get(key) ?? 0) + 1);
    }
    expect([...orders.keys()].sort()).toEqual(['Dragon,Phoenix', 'Phoenix,Dragon']);
    expect(Math.abs(orders.get('Dragon,Phoenix')! / 2000 - 0.5)).toBeLessThan(0.05);
  });

  it('lists the action names before any reset, in an order that does not reveal the better arm', () => {
    expect(createEnv(banditSpec).actionNames()).toEqual(['Dragon', 'Phoenix']);
    expect(createEnv(banditRevSpec).actionNames()).toEqual(['Dragon', 'Phoenix']);
  });

  it('pays 0.1 always for the low arm and 1 with probability 0.25 for the high arm; success = the high-EV arm', () => {
    const env = createEnv(banditSpec);
    let hiPayouts = 0;
    const outcomes = new Set<string>();
    const n = 4000;
    for (let seed = 0; seed < n; seed++) {
      env.reset(seed);
      const hi = env.step('dragon');
      outcomes.add(`hi ${hi.reward} ${hi.done} ${hi.info.success} ${hi.info.actionIsValid}`);
      hiPayouts += hi.reward;
      env.reset(seed);
      const lo = env.step('Phoenix');
      outcomes.add(`lo ${lo.reward} ${lo.done} ${lo.info.success}`);
    }
    expect([...outcomes].sort()).toEqual(['hi 0 true true true', 'hi 1 true true true', 'lo 0.1 true false']);
    expect(Math.abs(hiPayouts / n - 0.25)).toBeLessThan(0.03);
    env.reset(1);
    expect(env.step('Unicorn')).toMatchObject({ reward: 0, done: false, info: { actionIsValid: false } });
    expect(env.solve?.()).toEqual(['Dragon']);
  });

  it('gives the same payout for the same seed', () => {
    const env = createEnv(banditSpec);
    const rewards = () => Array.from({ length: 50 }, (_, s) => (env.reset(s), env.step('Dragon').reward));
    expect(rewards()).toEqual(rewards());
  });

  it('has a variant with other names, and success follows expected value when payouts are reconfigured', () => {
    const rev = createEnv(banditRevSpec);
    rev.reset(0);
    expect(rev.actionNames()!.sort()).toEqual(['Dragon', 'Phoenix']);
    expect(rev.step('Dragon')).toMatchObject({ reward: 0.1, info: { success: false } });
    const custom = createEnv(banditSpec, { lo_arm_name: 'Teacher', hi_arm_name: 'Trader', lo_arm_score: 0.5 });
    custom.reset(0);
    expect(custom.actionNames()!.sort()).toEqual(['Teacher', 'Trader']);
    expect(custom.step('Teacher')).toMatchObject({ reward: 0.5, info: { success: true } });
    expect(() => new BanditEnv({ ...banditSpec.optionsSchema.parse({}), hi_arm_name: 'phoenix' })).toThrow(/different names/);
  });
});
