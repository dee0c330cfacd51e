/** Which benchmark modules `npm run bench -- ...` names, and the words each of them is given. */
import { closestName } from '../../trainer-core/closest-name';
import { BenchArgumentError } from './bench-errors';

/**
 * What a benchmark takes after its name. `rest`: every word after it, even one that names a
 * module (the frozenlake config is not the frozenlake benchmark). `words`: the words up to the
 * next benchmark's name (`model wasm --small envs`). `flags`: options and their values up to the
 * next name, so a bare word there is a misspelt name. A module missing here takes nothing.
 */
const ARGUMENTS: Record<string, 'rest' | 'words' | 'flags'> = {
  learning: 'rest',
  iteration: 'rest',
  frozenlake: 'rest',
  llm: 'rest',
  'lm-head': 'rest',
  model: 'words',
  envs: 'flags',
};

/** Modules of bench/ that are tools of their own, run with `npx tsx bench/<name>.ts`. */
export const BENCH_TOOLS = ['big-store', 'decode-host-time', 'decode-linear-sweep'] as const;

/** Asks for a usage text: the runner's list before any name, a benchmark's USAGE after its name. */
export const HELP: readonly string[] = ['--help', '-h', '--list'];

export interface BenchCall {
  name: string;
  /** The words after its name that are its own. */
  args: string[];
}

/** A word that is no benchmark: said with the closest one, or how a tool of the folder runs. */
function unknownName(word: string, available: ReadonlySet<string>, after?: string): BenchArgumentError {
  if ((BENCH_TOOLS as readonly string[]).includes(word)) {
    return new BenchArgumentError(`${word} is a tool, not a benchmark: npx tsx bench/${word}.ts --help says how to run it`);
  }
  const where = after === undefined ? '' : ` (${after} takes ${ARGUMENTS[after] === 'flags' ? 'only --options' : 'no arguments'})`;
  const closest = closestName(word, [...available]);
  return new BenchArgumentError(
    `unknown benchmark '${word}'${where}${closest ? `; did you mean ${closest}?` : ''} (npm run bench -- --list lists them)`,
  );
}

/**
 * The benchmarks named and the words of each, in the order named; none named is every one.
 * Throws a BenchArgumentError for a word that is neither a benchmark nor one's own.
 */
export function benchmarkCalls(args: readonly string[], available: ReadonlySet<string>): BenchCall[] {
  const calls: BenchCall[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    const current = calls.at(-1);
    if (current === undefined || (available.has(word) && ARGUMENTS[current.name] !== 'rest')) {
      if (!available.has(word)) throw unknownName(word, available);
      calls.push({ name: word, args: [] });
      continue;
    }
    const kind = ARGUMENTS[current.name];
    if (HELP.includes(word)) {
      current.args.push(word);
      continue;
    }
    const previous = current.args.at(-1);
    const isValue = previous !== undefined && previous.startsWith('--') && !previous.includes('=') && !word.startsWith('-');
    if (kind === undefined || (kind === 'flags' && !word.startsWith('-') && !isValue)) throw unknownName(word, available, current.name);
    current.args.push(word);
  }
  return calls;
}
