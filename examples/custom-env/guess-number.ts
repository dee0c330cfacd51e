/**
 * An example custom environment for TurnLab: guess a secret whole number; after each guess the
 * environment says "higher" or "lower". docs/custom-environments.md walks through it.
 *
 * A custom environment is a JS or TS module whose default export is `defineEnv({...})`: a type
 * name, a description, an options schema with defaults, and create(options) returning an object
 * with reset(seed), step(action), render(), renderState(), instructions(), legend(),
 * actionNames(), and optionally solve() and optimalSuccessProbability(budget). Everything it
 * needs comes from `turnlab/env`, which resolves wherever the file lies.
 *
 * Try it:    turnlab play examples/custom-env/guess-number.ts --seed 3 --set max_number=50
 * Check it:  turnlab check examples/custom-env/guess-number.ts
 * Train it:  turnlab train --config examples/custom-env/guess-number.yaml
 */
import { defineEnv, defineOptions, Rng, z, type Env, type OptionsOf, type StateRender, type StepResult } from 'turnlab/env';

const optionsSchema = defineOptions({
  max_number: z.number().int().min(2).default(100).describe('the secret lies in 1..max_number'),
  max_guesses: z.number().int().min(1).default(7).describe('guesses allowed per episode'),
});
type GuessOptions = OptionsOf<typeof optionsSchema>;

class GuessNumberEnv implements Env {
  private secret = 1;
  private low = 1;
  private high = 1;
  private guesses = 0;
  private found = false;
  private feedback = '';

  constructor(private readonly options: GuessOptions) {}

  reset(seed: number): string {
    this.secret = new Rng(seed).intBetween(1, this.options.max_number);
    this.low = 1;
    this.high = this.options.max_number;
    this.guesses = 0;
    this.found = false;
    this.feedback = '';
    return this.render();
  }

  private get done(): boolean {
    return this.found || this.guesses >= this.options.max_guesses;
  }

  step(action: string): StepResult {
    const guess = Number(action.trim());
    const valid = action.trim() !== '' && Number.isInteger(guess);
    if (this.done || !valid) {
      return { observation: this.render(), reward: 0, done: this.done, info: { success: this.found, actionIsValid: valid, actionIsEffective: false } };
    }
    this.guesses++;
    const before = `${this.low}-${this.high}`;
    if (guess === this.secret) this.found = true;
    else if (guess < this.secret) this.low = Math.max(this.low, guess + 1);
    else this.high = Math.min(this.high, guess - 1);
    this.feedback = this.found ? `${guess} is right!` : `${guess} is too ${guess < this.secret ? 'low' : 'high'}.`;
    return {
      observation: this.render(),
      reward: this.found ? 1 : 0,
      done: this.done,
      info: { success: this.found, actionIsValid: true, actionIsEffective: this.found || before !== `${this.low}-${this.high}` },
    };
  }

  render(): string {
    const left = this.options.max_guesses - this.guesses;
    const range = `The secret is between ${this.low} and ${this.high}. Guesses left: ${left}.`;
    return this.feedback ? `${this.feedback}\n${range}` : range;
  }

  renderState(): StateRender {
    return { kind: 'text', text: this.render(), fields: { low: this.low, high: this.high, guesses: this.guesses } };
  }

  instructions(): string {
    return `Guess the secret whole number between 1 and ${this.options.max_number}. Answer with one number; you will be told whether the secret is higher or lower.`;
  }

  legend(): string {
    return '';
  }

  actionNames(): null {
    return null;
  }

  /**
   * What a player who sees only the observations does best: halve the range. The plan is the
   * sequence of midpoint guesses that finds this secret (the env is deterministic, so the whole
   * plan is known now); the expert warm start imitates it turn by turn.
   */
  solve(): string[] | null {
    if (this.done) return null;
    const plan: string[] = [];
    let [low, high] = [this.low, this.high];
    for (;;) {
      const guess = Math.floor((low + high) / 2);
      plan.push(String(guess));
      if (guess === this.secret) return plan;
      if (guess < this.secret) low = guess + 1;
      else high = guess - 1;
    }
  }

  /**
   * The share of the secrets still possible that halving finds within the budget (and the
   * guesses left): the `optimal_success` a trained policy is measured against. Halving finds
   * 2^k - 1 numbers with k guesses, so 1..8 with 3 guesses gives 7/8.
   */
  optimalSuccessProbability(actionBudget: number): number {
    if (this.found) return 1;
    const guesses = Math.min(actionBudget, this.options.max_guesses - this.guesses);
    const size = this.high - this.low + 1;
    return Math.min(size, 2 ** guesses - 1) / size;
  }
}

export default defineEnv({
  type: 'guess_number',
  description: 'Guess the secret number; feedback says higher or lower (an example custom environment)',
  optionsSchema,
  multiAction: false,
  create: (options) => new GuessNumberEnv(options),
});
