// Overrides as verl's and RAGEN's scripts take them, Hydra's way: `trainer.total_training_steps=50`
// after the command, no `--set`. A researcher pasting a line from a verl example gets the run it
// describes, or a line saying what TurnLab does not take.
import { UserError } from './errors';

/**
 * The `key=value` arguments of a command, as `--set` takes them (which also reads Hydra's
 * `+key=value`, `++key=value` and refuses its `~key`). A word with no `=` is no override.
 */
export function hydraOverrides(args: readonly string[]): string[] {
  for (const arg of args) {
    if (!arg.startsWith('~') && arg.replace(/^\+\+?/, '').indexOf('=') <= 0) {
      throw new UserError(`'${arg}' is not an override: write key=value after the command, e.g. trainer.total_training_steps=50 (or --set key=value)`);
    }
  }
  return [...args];
}

/** Whether `value` holds a comma outside brackets, braces and quotes (Hydra's sweep `1e-3,3e-4`, not a list `[8, 8]`). */
function hasTopLevelComma(value: string): boolean {
  let depth = 0;
  let quote: string | null = null;
  for (const ch of value) {
    if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[' || ch === '{') depth += 1;
    else if (ch === ']' || ch === '}') depth -= 1;
    else if (ch === ',' && depth === 0) return true;
  }
  return false;
}

/**
 * A sweep's arguments as Hydra's multirun reads them: `key=v1,v2` is an axis of the grid (as
 * `--grid`), `key=value` an override of every run (as `--set`).
 */
export function multirunArguments(args: readonly string[]): { overrides: string[]; grid: string[] } {
  const overrides: string[] = [];
  const grid: string[] = [];
  for (const pair of hydraOverrides(args)) {
    (hasTopLevelComma(pair.slice(pair.indexOf('=') + 1)) ? grid : overrides).push(pair);
  }
  return { overrides, grid };
}
