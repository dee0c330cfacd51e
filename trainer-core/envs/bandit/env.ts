import { deriveSeed, Rng } from '../../rng';
import { invalidActionResult, matchActionName } from '../actions';
import { EnvConfigError } from '../errors';
import type { Env, StateRender, StepResult } from '../types';
import type { BanditOptions } from './options';
import { banditStateRender, renderBandit } from './render';

/**
 * RAGEN's two-armed bandit: one pull, arms named so that their names hint at their payouts, in
 * an order shuffled per reset. Success means pulling the arm with the higher expected payout.
 * Payouts and order both come from the reset seed, so a group sharing a seed sees the same draw.
 */
export class BanditEnv implements Env {
  private arms: [string, string] = ['', ''];
  private payoutRng = new Rng(0);
  private pulled: string | null = null;
  private lastReward = 0;

  constructor(readonly options: BanditOptions) {
    if (options.lo_arm_name.toLowerCase() === options.hi_arm_name.toLowerCase()) {
      throw new EnvConfigError(`bandit: the two arms need different names, both are '${options.lo_arm_name}'`);
    }
  }

  /** The arm with the higher expected payout (the high arm unless its payouts were configured lower). */
  private get bestArm(): string {
    const o = this.options;
    const hiMean = o.hi_arm_hiscore_prob * o.hi_arm_score + (1 - o.hi_arm_hiscore_prob) * o.hi_arm_loscore;
    return hiMean >= o.lo_arm_score ? o.hi_arm_name : o.lo_arm_name;
  }

  reset(seed: number): string {
    const { lo_arm_name: lo, hi_arm_name: hi } = this.options;
    this.arms = new Rng(deriveSeed(seed, 'arm-order')).next() < 0.5 ? [lo, hi] : [hi, lo];
    this.payoutRng = new Rng(deriveSeed(seed, 'payout'));
    this.pulled = null;
    return this.render();
  }

  step(action: string): StepResult {
    if (this.pulled !== null) {
      return { observation: this.render(), reward: 0, done: true, info: { success: false, actionIsValid: true, actionIsEffective: false } };
    }
    const arm = matchActionName(action, this.arms);
    if (arm === null) return invalidActionResult(this.render(), false);
    const o = this.options;
    const reward =
      arm === o.lo_arm_name ? o.lo_arm_score : this.payoutRng.next() < o.hi_arm_hiscore_prob ? o.hi_arm_score : o.hi_arm_loscore;
    this.pulled = arm;
    this.lastReward = reward;
    return {
      observation: this.render(),
      reward,
      done: true,
      info: { success: arm === this.bestArm, actionIsValid: true, actionIsEffective: true, arm },
    };
  }

  render(): string {
    return renderBandit(this.arms, this.pulled, this.lastReward);
  }

  renderState(): StateRender {
    return banditStateRender(this.arms, this.pulled, this.lastReward);
  }

  instructions(): string {
    return (
      'You are playing a bandit game. Goal: maximize your reward by choosing which arm to pull. ' +
      'There are 2 arms; each has its own reward distribution, related to its name. ' +
      'Use what the names suggest to guess which arm pays more on average, then answer with that arm name.'
    );
  }

  legend(): string {
    return '';
  }

  /**
   * Fixed from the options, not the shuffled order: prompts are built before the first reset.
   * Alphabetical rather than low-then-high, so the position in the list never tells which arm
   * pays more (only the names may; the observation shows the shuffled order).
   */
  actionNames(): string[] {
    return [this.options.lo_arm_name, this.options.hi_arm_name].sort((a, b) => a.localeCompare(b));
  }

  solve(): string[] | null {
    return this.pulled === null ? [this.bestArm] : null;
  }

  optimalSuccessProbability(actionBudget: number): number {
    return this.pulled === null && actionBudget >= 1 ? 1 : 0;
  }
}
