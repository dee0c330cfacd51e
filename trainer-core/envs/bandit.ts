import { z } from 'zod';
import { deriveSeed, Rng } from '../rng';
import { invalidActionResult, matchActionName } from './actions';
import { EnvConfigError } from './errors';
import type { Env, EnvSpec, StateRender, StepResult } from './types';

function banditOptionsSchema(loName: string, hiName: string) {
  return z
    .object({
      lo_arm_name: z.string().min(1).default(loName).describe('name of the steady, low-paying arm'),
      hi_arm_name: z.string().min(1).default(hiName).describe('name of the risky arm with the higher expected payout'),
      lo_arm_score: z.number().default(0.1).describe('what the low arm always pays'),
      hi_arm_score: z.number().default(1.0).describe('what the high arm pays when it pays out'),
      hi_arm_loscore: z.number().default(0.0).describe('what the high arm pays otherwise'),
      hi_arm_hiscore_prob: z.number().min(0).max(1).default(0.25).describe('probability that the high arm pays hi_arm_score'),
    })
    .strict();
}

export const banditOptionsSchemaDefault = banditOptionsSchema('Phoenix', 'Dragon');
export type BanditOptions = z.infer<typeof banditOptionsSchemaDefault>;

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
    if (this.pulled !== null) return `${this.pulled}: ${this.lastReward} points`;
    const [a, b] = this.arms;
    return `There are 2 arms, named ${a} and ${b}. Choose one arm to pull: ${a} or ${b}.`;
  }

  renderState(): StateRender {
    const fields: Record<string, string | number | string[]> = { arms: [...this.arms] };
    if (this.pulled !== null) {
      fields.pulled = this.pulled;
      fields.reward = this.lastReward;
    }
    return { kind: 'text', text: this.render(), fields };
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

export const banditSpec: EnvSpec<BanditOptions> = {
  type: 'bandit',
  description: 'Two-armed bandit: Phoenix pays 0.1 always, Dragon 1.0 with probability 0.25; order shuffled per reset',
  optionsSchema: banditOptionsSchemaDefault,
  create: (options) => new BanditEnv(options),
  multiAction: false,
};

/** The reversed variant (RAGEN's Bandit-Rev idea): the same game with the arms' names swapped. */
export const banditRevSpec: EnvSpec<BanditOptions> = {
  type: 'bandit_rev',
  description: 'Two-armed bandit with the names swapped: Dragon pays 0.1 always, Phoenix 1.0 with probability 0.25',
  optionsSchema: banditOptionsSchema('Dragon', 'Phoenix'),
  create: (options) => new BanditEnv(options),
  multiAction: false,
};
