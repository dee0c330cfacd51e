// The Runs table's conditions as text (the CLI's --where, the Runs view's field and address).
import { describe, expect, it } from 'vitest';
import { formatRunConditions, parseRunCondition, parseRunConditions, RUN_CONDITIONS_MAX } from '../../preload/run-conditions';

describe('run conditions', () => {
  it('reads a column, an operator and a typed value, with or without spaces', () => {
    expect(parseRunCondition('metric:val/Bandit/success >= 0.9')).toEqual({ column: 'metric:val/Bandit/success', op: '>=', value: 0.9 });
    expect(parseRunCondition('actor_rollout_ref.actor.optim.lr<1e-4')).toEqual({ column: 'actor_rollout_ref.actor.optim.lr', op: '<', value: 1e-4 });
    expect(parseRunCondition('algorithm.adv_estimator=grpo')).toEqual({ column: 'algorithm.adv_estimator', op: '=', value: 'grpo' });
    expect(parseRunCondition('algorithm.bi_level_gae != true')).toEqual({ column: 'algorithm.bi_level_gae', op: '!=', value: true });
    // Quoted is text even where it reads as a number; the quotes go.
    expect(parseRunCondition("trainer.experiment_name='1e-4'")).toEqual({ column: 'trainer.experiment_name', op: '=', value: '1e-4' });
    expect(parseRunCondition('custom_envs.my-env.env_config.size > 5')).toMatchObject({ column: 'custom_envs.my-env.env_config.size', op: '>', value: 5 });
  });

  it('joins conditions with and, except inside quotes', () => {
    expect(parseRunConditions('algorithm.adv_estimator=grpo AND metric:val/Bandit/success>0.5 and trainer.seed<=2')).toEqual([
      { column: 'algorithm.adv_estimator', op: '=', value: 'grpo' },
      { column: 'metric:val/Bandit/success', op: '>', value: 0.5 },
      { column: 'trainer.seed', op: '<=', value: 2 },
    ]);
    expect(parseRunConditions('trainer.experiment_name="rock and roll" and trainer.seed=1')).toEqual([
      { column: 'trainer.experiment_name', op: '=', value: 'rock and roll' },
      { column: 'trainer.seed', op: '=', value: 1 },
    ]);
    expect(parseRunConditions('   ')).toEqual([]);
    // "sand" holds "and" but not as a word.
    expect(parseRunConditions('trainer.experiment_name=sandbox')).toEqual([{ column: 'trainer.experiment_name', op: '=', value: 'sandbox' }]);
  });

  it('says what is wrong with a condition it cannot read', () => {
    expect(() => parseRunCondition('lr')).toThrow(/'lr' has no operator \(a condition is <config key or metric:name> <op> <value>/);
    expect(() => parseRunCondition('>= 3')).toThrow(/no column before its operator/);
    expect(() => parseRunCondition('lr =< 3')).toThrow(/'=<' is not an operator/);
    expect(() => parseRunCondition('lr = = 3')).toThrow(/its value '= 3' begins with an operator/);
    expect(parseRunCondition('trainer.seed == 3')).toEqual({ column: 'trainer.seed', op: '=', value: 3 });
    expect(() => parseRunCondition('lr >')).toThrow(/has no value after its operator/);
    expect(() => parseRunCondition('a b = 3')).toThrow(/'a b' is neither a dotted config key/);
    expect(() => parseRunCondition('algorithm.bi_level_gae > true')).toThrow(/true and false compare with = or != only/);
    expect(() => parseRunConditions(Array.from({ length: RUN_CONDITIONS_MAX + 1 }, (_, i) => `trainer.seed!=${i}`).join(' and '))).toThrow(/at most 16 conditions/);
  });

  it('refuses a value that holds a second condition, so delete --where never selects runs it was not asked for', () => {
    // Read as one value, `completed or name=child` made status!= true of every run.
    expect(() => parseRunConditions('status!=completed or name=child')).toThrow(/conditions join with 'and' only/);
    expect(() => parseRunConditions('name=child || name=bandit')).toThrow(/conditions join with 'and' only/);
    expect(() => parseRunConditions('name=a b=c')).toThrow(/its value 'a b=c' holds an operator; join conditions with 'and', or quote/);
    expect(parseRunConditions('name="rock or roll"')).toEqual([{ column: 'name', op: '=', value: 'rock or roll' }]);
    expect(parseRunConditions("name='a=b'")).toEqual([{ column: 'name', op: '=', value: 'a=b' }]);
    expect(() => parseRunConditions('status=completed and')).toThrow(/'status=completed and' ends with 'and' and no condition after it/);
    // A column as --sort spells it, a field as the JSON names it.
    expect(parseRunConditions('config:trainer.seed=1 and bestValSuccess>0.5')).toEqual([
      { column: 'trainer.seed', op: '=', value: 1 },
      { column: 'best_val_success', op: '>', value: 0.5 },
    ]);
    // `&&` is read as `and`.
    expect(parseRunConditions('name=child && status=completed')).toEqual([
      { column: 'name', op: '=', value: 'child' },
      { column: 'status', op: '=', value: 'completed' },
    ]);
    // A metric is a number: text matched no run and said nothing.
    expect(() => parseRunCondition('metric:val/Bandit/success>=abc')).toThrow(/metric:val\/Bandit\/success is a number \(the metric's last value\); compare it with a number, not "abc"/);
  });

  it('reads created_at as a local date or time, and refuses a date the calendar has not or = on a day', () => {
    expect(parseRunCondition('created_at>=2026-11-23')).toEqual({ column: 'created_at', op: '>=', value: new Date(2026, 10, 23).getTime() });
    expect(parseRunCondition('created_at<2026-11-23T08:30')).toEqual({ column: 'created_at', op: '<', value: new Date(2026, 10, 23, 8, 30).getTime() });
    expect(() => parseRunCondition('created_at<2026-02-30')).toThrow("'created_at<2026-02-30': 2026-02-30 is no date of the calendar");
    expect(() => parseRunCondition('created_at>=2026-13-01')).toThrow('2026-13-01 is no date of the calendar');
    expect(() => parseRunCondition('created_at=2026-12-31')).toThrow('for the runs of that day use created_at>=2026-12-31 and created_at<2027-01-01');
  });

  it('writes conditions back as text that reads the same', () => {
    for (const text of ['algorithm.adv_estimator=grpo and metric:val/Bandit/success>=0.9', 'a.b="12" and a.c="true" and a.d="x and y" and a.e=false and a.f!=-3.5 and a.g="x or y" and a.h="p=q"']) {
      const conditions = parseRunConditions(text);
      expect(formatRunConditions(conditions)).toBe(text);
      expect(parseRunConditions(formatRunConditions(conditions))).toEqual(conditions);
    }
  });
});
