/**
 * Checks of a benchmark's words (`npm run bench -- llm --steps 3`): a mistake is one line that
 * names the option and the value and says what fits, thrown as BenchArgumentError so the runner
 * prints it without a stack and exits 2, instead of a benchmark that prints NaN as its figures.
 */
import { distance } from 'fastest-levenshtein';
import { closestName } from '../../trainer-core/closest-name';
import { BenchArgumentError, isUserError } from './bench-errors';

/** `--help` or `-h` anywhere among the words. */
export const wantsHelp = (args: readonly string[]) => args.includes('--help') || args.includes('-h');

/** The choice `word` is likely a slip of, if any: one it begins (`--fork` of `--fork-iterations`), or one a few edits away (`--toString` is no slip of `--width`). */
function near(word: string, choices: readonly string[]): string | undefined {
  const begun = choices.find((choice) => word.length > 3 && choice.startsWith(word));
  if (begun !== undefined) return begun;
  const best = closestName(word, choices);
  return best !== undefined && distance(word.toLowerCase(), best.toLowerCase()) <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** `unknown option --bakend; did you mean --backend? (options: ...)`. */
export function unknownOption(word: string, options: readonly string[]): BenchArgumentError {
  const closest = near(word, options);
  return new BenchArgumentError(`unknown option ${word}${closest ? `; did you mean ${closest}?` : ''} (options: ${options.join(', ')})`);
}

/** `name` is not among `choices`: the closest one and all of them. */
export function notAmong(what: string, name: string, choices: readonly string[]): BenchArgumentError {
  const closest = near(name, choices);
  return new BenchArgumentError(`${what} "${name}"${closest ? `; did you mean ${closest}?` : ''} (one of ${choices.join(', ')})`);
}

/** The word after `option`; an option's own name there is not its value (`--steps --rows 4`). */
export function valueAfter(args: readonly string[], at: number, option: string, wanted: string): string {
  const value = args[at + 1];
  if (value === undefined || (value.startsWith('--') && value.length > 2)) throw new BenchArgumentError(`${option} needs a value: ${wanted}`);
  return value;
}

export const WHOLE = 'a whole number of 1 or more';

/** A count: digits only, so `1.5`, `1e3`, `-1` and `abc` are refused rather than read as NaN or a fraction. */
export function wholeNumber(option: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || !Number.isSafeInteger(n)) throw new BenchArgumentError(`${option} ${text}: ${WHOLE}`);
  return n;
}

/** Counts separated by commas (`--rows 1,4,16`). */
export function wholeNumbers(option: string, text: string): number[] {
  const parts = text.split(',');
  if (!parts.every((p) => /^\d+$/.test(p) && Number(p) >= 1)) throw new BenchArgumentError(`${option} ${text}: whole numbers of 1 or more separated by commas, e.g. ${option} 1,4`);
  return parts.map(Number);
}

/** One of `choices`: a wrong value is the value's fault, not the option's. */
export function oneOf<T extends string>(option: string, text: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(text)) return text as T;
  const closest = near(text, choices);
  throw new BenchArgumentError(`${option} ${text}: use one of ${choices.join(', ')}${closest ? ` (did you mean ${closest}?)` : ''}`);
}

/**
 * A bench file's own entry (`npx tsx bench/llm.ts ...`), as the runner does it: `--help` prints
 * `usage`, and a user's mistake is one line on stderr and exit 2.
 */
export async function runAlone(name: string, usage: string, main: (args: string[]) => Promise<void>, args = process.argv.slice(2)): Promise<void> {
  if (wantsHelp(args)) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  try {
    await main(args);
  } catch (error) {
    if (!isUserError(error)) throw error;
    process.stderr.write(`bench ${name}: ${error.message}\n`);
    process.exit(2);
  }
}
