import { deriveSeed, Rng } from '../../rng';
import { invalidActionResult } from '../actions';
import { EnvConfigError } from '../errors';
import { readJsonl } from '../jsonl';
import type { Env, StateRender, StepResult } from '../types';
import { scoreCountdown } from './expression';
import { generateCountdown, type CountdownInstance } from './generator';
import type { CountdownOptions } from './options';
import { countdownStateRender, renderCountdown } from './render';
import { solveCountdown } from './solver';

// A run makes one env per rollout slot; they share the parsed and filtered instances.
const filtered = new WeakMap<unknown[], Map<string, CountdownInstance[]>>();

/** Instances from a file, filtered to those solvable with the configured operators (as RAGEN does). */
function loadInstances(options: CountdownOptions, path: string): CountdownInstance[] {
  const label = 'countdown';
  const allRows = readJsonl(path, label);
  const key = `${options.max_instances}|${options.operators.join('')}`;
  let byOptions = filtered.get(allRows);
  if (!byOptions) filtered.set(allRows, (byOptions = new Map()));
  const cached = byOptions.get(key);
  if (cached) return cached;
  const instances: CountdownInstance[] = [];
  const rows = allRows.slice(0, options.max_instances);
  rows.forEach((row, i) => {
    const record = row as { target?: unknown; nums?: unknown };
    const ok =
      typeof record === 'object' && record !== null && typeof record.target === 'number' &&
      Array.isArray(record.nums) && record.nums.every((n) => Number.isInteger(n));
    if (!ok) throw new EnvConfigError(`${label}: ${path} row ${i + 1} needs {"target": number, "nums": [integers]}`);
    const instance = { target: record.target as number, nums: record.nums as number[] };
    if (solveCountdown(instance.nums, instance.target, options.operators) !== null) instances.push(instance);
  });
  if (instances.length === 0) throw new EnvConfigError(`${label}: ${path} has no instance solvable with ${options.operators.join(' ')}`);
  byOptions.set(key, instances);
  return instances;
}

/** RAGEN's Countdown: one equation per episode, scored 1 / 0.1 / 0. */
export class CountdownEnv implements Env {
  private instance: CountdownInstance = { target: 0, nums: [] };
  private answered = false;
  private feedback = '';
  private readonly instances: CountdownInstance[] | null;

  constructor(readonly options: CountdownOptions) {
    if (options.min_numbers > options.max_numbers) {
      throw new EnvConfigError(`countdown: min_numbers (${options.min_numbers}) is larger than max_numbers (${options.max_numbers})`);
    }
    this.instances = options.train_path ? loadInstances(options, options.train_path) : null;
  }

  /** File instances are picked by seed modulo their count (RAGEN); otherwise generated from the seed. */
  reset(seed: number): string {
    if (this.instances) {
      this.instance = this.instances[((seed % this.instances.length) + this.instances.length) % this.instances.length];
    } else {
      const o = this.options;
      this.instance = generateCountdown(
        { minNumbers: o.min_numbers, maxNumbers: o.max_numbers, maxNumber: o.max_number, maxTarget: o.max_target, operators: o.operators },
        new Rng(deriveSeed(seed, 'countdown')),
      );
    }
    this.answered = false;
    this.feedback = '';
    return this.render();
  }

  /** Loads a given instance; for tests and fixed evaluation sets. */
  loadInstance(instance: CountdownInstance): string {
    this.instance = { target: instance.target, nums: [...instance.nums] };
    this.answered = false;
    this.feedback = '';
    return this.render();
  }

  step(action: string): StepResult {
    if (this.answered) {
      return { observation: this.render(), reward: 0, done: true, info: { success: false, actionIsValid: true, actionIsEffective: false } };
    }
    if (action.trim() === '') return invalidActionResult(this.render(), false);
    const score = scoreCountdown(action, this.instance.nums, this.instance.target);
    this.answered = true;
    this.feedback = score.correct ? `Correct: ${action.trim()} = ${this.instance.target}` : `Wrong: ${action.trim()} ${score.reason}`;
    return {
      observation: this.render(),
      reward: score.reward,
      done: true,
      info: { success: score.correct, actionIsValid: true, actionIsEffective: true, wellFormed: score.wellFormed },
    };
  }

  render(): string {
    return renderCountdown(this.instance, this.feedback);
  }

  renderState(): StateRender {
    return countdownStateRender(this.instance, this.feedback);
  }

  instructions(): string {
    const ops = this.options.operators.join(' ');
    return (
      `You are solving the Countdown puzzle. Use every number in nums exactly once to write an arithmetic expression that equals the target. ` +
      `Use the operators ${ops} and parentheses. Answer with the expression only, for example 17 - 13 + 3.`
    );
  }

  legend(): string {
    return '';
  }

  actionNames(): null {
    return null;
  }

  solve(): string[] | null {
    if (this.answered) return null;
    const equation = solveCountdown(this.instance.nums, this.instance.target, this.options.operators);
    return equation === null ? null : [equation];
  }

  optimalSuccessProbability(actionBudget: number): number {
    return actionBudget >= 1 && this.solve() !== null ? 1 : 0;
  }
}
