import type { Rng } from '../../rng';
import { EnvConfigError } from '../errors';
import type { CountdownOperator } from './solver';

export interface CountdownInstance {
  target: number;
  nums: number[];
}

export interface CountdownGeneration {
  minNumbers: number;
  maxNumbers: number;
  maxNumber: number;
  maxTarget: number;
  operators: readonly CountdownOperator[];
}

/**
 * A solvable instance: draw the numbers, combine them in a random order with random allowed
 * operators, and keep the result as target when it is a whole number in [1, maxTarget].
 */
export function generateCountdown(options: CountdownGeneration, rng: Rng): CountdownInstance {
  for (let attempt = 0; attempt < MAX_GENERATION_ATTEMPTS; attempt++) {
    const count = rng.intBetween(options.minNumbers, options.maxNumbers);
    const nums = Array.from({ length: count }, () => rng.intBetween(1, options.maxNumber));
    const pool = nums.slice();
    while (pool.length > 1) {
      const a = pool.splice(rng.int(pool.length), 1)[0];
      const b = pool.splice(rng.int(pool.length), 1)[0];
      const op = rng.choice(options.operators);
      pool.push(op === '+' ? a + b : op === '-' ? a - b : op === '*' ? a * b : b === 0 ? NaN : a / b);
    }
    const target = pool[0];
    if (Number.isInteger(target) && target >= 1 && target <= options.maxTarget) return { target, nums };
  }
  throw new EnvConfigError(
    `countdown: no instance with a target in [1, ${options.maxTarget}] after ${MAX_GENERATION_ATTEMPTS} tries with operators ${options.operators.join(' ')}; allow more operators or a larger max_target`,
  );
}

const MAX_GENERATION_ATTEMPTS = 100_000;
